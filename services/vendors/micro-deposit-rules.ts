// The vendor's side of a held bank detail change, as pure rules the vendor decider applies: the
// notice to the contact on record (its "this was not me" link), and the micro-deposit verification
// (two credits of 1–99 cents to the new account; the vendor enters them through a link; three wrong
// tries lock it). Kept apart from vendor-decider.ts, which calls these once it has found the change
// pending; nothing here reads a clock or a store.
import type { VendorEvent } from '../../schema/vendors/events.js';
import { DomainError } from '../shared/domain-errors.js';

/** Wrong entries a verification takes before it locks. */
export const MICRO_DEPOSIT_TRIES = 3;

/** The "this was not me" link of the notice sent for a pending change. */
export interface ChangeNotice {
  linkId: string;
  expiresAt: string;
}

export interface MicroDepositVerification {
  verificationId: string;
  /** Opened from the event; null when its vendor's key is gone (nothing then matches). */
  amountsCents: readonly number[] | null;
  triesLeft: number;
  expiresAt: string;
  fileId: string;
}

export type NoticeCommand = {
  type: 'RecordBankingNotice';
  changeId: string;
  outcome: 'sent' | 'no-contact';
  linkId: string | null;
  expiresAt: string | null;
  now: string;
};

export type MailEndedCommand = {
  type: 'RecordBankingMailEnded';
  changeId: string;
  mail: 'change-notice' | 'micro-deposit-link';
  outcome: 'failed' | 'delivered';
  reason: string | null;
  mailJobId: string;
  now: string;
};

export type StartMicroDepositsCommand = {
  type: 'StartMicroDeposits';
  changeId: string;
  verificationId: string;
  /** Chosen by the caller (crypto random), 1–99 each. */
  amountsCents: readonly [number, number];
  file: { fileId: string; fileName: string; fileIdModifier: string; effectiveDate: string };
  accountLast4: string | null;
  byUserId: number;
  expiresAt: string;
  now: string;
};

export type ConfirmMicroDepositsCommand = {
  type: 'ConfirmMicroDeposits';
  changeId: string;
  verificationId: string;
  amountsCents: readonly number[];
  now: string;
};

export type MicroDepositsDownloadCommand = {
  type: 'RecordMicroDepositsDownload';
  changeId: string;
  verificationId: string;
  fileId: string;
  byUserId: number;
  now: string;
};

export const FROZEN_ONLY_REJECT =
  "The vendor's contact reported this change as not theirs: it can only be rejected";

/** The pending change `changeId`, or the refusal that it is not (any longer) pending. */
export function pendingOf<P extends { changeId: string }>(pending: P | null, changeId: string): P {
  if (!pending || pending.changeId !== changeId)
    throw new DomainError(
      'CONFLICT',
      'This bank detail change is no longer pending (approved, rejected or replaced)',
    );
  return pending;
}

/** The two amounts, in either order. */
const sameAmounts = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length &&
  [...a].sort((x, y) => x - y).every((v, i) => v === [...b].sort((x, y) => x - y)[i]);

/** The notice's outcome for a change (any change of the vendor: the job records it once). */
export function recordNotice(vendorId: number, c: NoticeCommand): VendorEvent[] {
  return [
    {
      type: 'VendorBankingChangeNoticed',
      data: {
        vendorId,
        changeId: c.changeId,
        outcome: c.outcome,
        linkId: c.outcome === 'sent' ? c.linkId : null,
        expiresAt: c.outcome === 'sent' ? c.expiresAt : null,
        at: c.now,
      },
    },
  ];
}

/** How a mail about a change ended: on record whatever the change's state (the vendor may not know). */
export function recordMailEnded(vendorId: number, c: MailEndedCommand): VendorEvent[] {
  return [
    {
      type: 'VendorBankingMailEnded',
      data: {
        vendorId,
        changeId: c.changeId,
        mail: c.mail,
        outcome: c.outcome,
        reason: c.reason === null ? null : c.reason.slice(0, 500),
        mailJobId: c.mailJobId,
        at: c.now,
      },
    },
  ];
}

/** A "this was not me" press must come through the link the notice of this very change carried. */
export function checkNoticeLink(notice: ChangeNotice | null | undefined, linkId: string, now: string) {
  if (!notice || notice.linkId !== linkId)
    throw new DomainError('FORBIDDEN', 'This link is not valid for this change');
  if (Date.parse(now) >= Date.parse(notice.expiresAt))
    throw new DomainError('CONFLICT', 'This link has expired');
}

/** A new verification of a pending, unfrozen change (an earlier one is replaced). */
export function startMicroDeposits(
  vendorId: number,
  frozen: boolean,
  c: StartMicroDepositsCommand,
): VendorEvent[] {
  if (frozen) throw new DomainError('CONFLICT', FROZEN_ONLY_REJECT);
  if (c.amountsCents.some((a) => !Number.isInteger(a) || a < 1 || a > 99))
    throw new DomainError('VALIDATION', 'Micro-deposits are 1 to 99 cents each');
  return [
    {
      type: 'VendorMicroDepositsSent',
      data: {
        vendorId,
        changeId: c.changeId,
        verificationId: c.verificationId,
        amountsCents: [...c.amountsCents],
        ...c.file,
        accountLast4: c.accountLast4,
        byUserId: c.byUserId,
        tries: MICRO_DEPOSIT_TRIES,
        expiresAt: c.expiresAt,
        at: c.now,
      },
    },
  ];
}

/**
 * The vendor's entry: the right amounts confirm (the caller adds the live banking after), wrong ones
 * take a try. Refused: frozen, another verification than the latest, locked, expired.
 */
export function confirmMicroDeposits(
  vendorId: number,
  frozen: boolean,
  v: MicroDepositVerification | null | undefined,
  c: ConfirmMicroDepositsCommand,
): VendorEvent[] {
  if (frozen) throw new DomainError('CONFLICT', FROZEN_ONLY_REJECT);
  if (!v) throw new DomainError('CONFLICT', 'No micro-deposit verification of this change was started');
  if (v.verificationId !== c.verificationId)
    throw new DomainError(
      'CONFLICT',
      'This verification was replaced by a newer one: use the link in the latest e-mail',
    );
  if (v.triesLeft <= 0)
    throw new DomainError(
      'CONFLICT',
      'This verification is locked after too many wrong amounts: the company must start a new one or have the change approved',
    );
  if (Date.parse(c.now) >= Date.parse(v.expiresAt))
    throw new DomainError('CONFLICT', 'This link has expired');
  const { changeId, verificationId, now } = c;
  if (v.amountsCents && sameAmounts(v.amountsCents, c.amountsCents))
    return [{ type: 'VendorMicroDepositsConfirmed', data: { vendorId, changeId, verificationId, at: now } }];
  return [
    {
      type: 'VendorMicroDepositsMismatched',
      data: { vendorId, changeId, verificationId, triesLeft: v.triesLeft - 1, at: now },
    },
  ];
}

export function recordDownload(vendorId: number, c: MicroDepositsDownloadCommand): VendorEvent[] {
  const { changeId, verificationId, fileId, byUserId, now } = c;
  return [
    {
      type: 'VendorMicroDepositsFileDownloaded',
      data: { vendorId, changeId, verificationId, fileId, byUserId, at: now },
    },
  ];
}

/** How the pending change's vendor-side fields move with these events. */
export function evolvePending<
  P extends {
    changeId: string;
    notice?: ChangeNotice | null;
    verification?: MicroDepositVerification | null;
  },
>(pending: P, event: VendorEvent): P {
  switch (event.type) {
    case 'VendorBankingChangeNoticed': {
      const { changeId, outcome, linkId, expiresAt } = event.data;
      if (changeId !== pending.changeId || outcome !== 'sent' || !linkId || !expiresAt) return pending;
      return { ...pending, notice: { linkId, expiresAt } };
    }
    case 'VendorMicroDepositsSent': {
      const d = event.data;
      if (d.changeId !== pending.changeId) return pending;
      const amounts = Array.isArray(d.amountsCents) ? d.amountsCents : null;
      return {
        ...pending,
        verification: {
          verificationId: d.verificationId,
          amountsCents: amounts,
          triesLeft: d.tries,
          expiresAt: d.expiresAt,
          fileId: d.fileId,
        },
      };
    }
    case 'VendorMicroDepositsMismatched': {
      const v = pending.verification;
      if (event.data.changeId !== pending.changeId || v?.verificationId !== event.data.verificationId)
        return pending;
      return { ...pending, verification: { ...v, triesLeft: event.data.triesLeft } };
    }
    default:
      return pending;
  }
}
