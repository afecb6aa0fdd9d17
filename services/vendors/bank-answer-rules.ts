// What the bank's answers to a payment do to the vendor, as pure rules the vendor decider applies:
// a return that says the account cannot take payments (or that someone must look) blocks the
// vendor's banking until a changed account goes live; a notification of change proposes the
// corrected numbers as a held change (source `noc`). Each answer acts once: per returned entry, and
// per (entry, bank file) for a notification of change. Nothing here reads a clock or a store.
import { type AccountType, shownTail, type VendorEvent } from '../../schema/vendors/events.js';

/** The numbers and the type a payment goes by, and the bank's name. */
interface Banking {
  routingNumber: string;
  accountNumber: string;
  accountType: AccountType;
  bankName: string | null;
}

/** The vendor's banking blocked after a return: the account it blocks, and why. */
export interface BankingBlock {
  traceNumber: string;
  returnCode: string;
  description: string;
  at: string;
  /** The live banking the return named (null: none was live, never blocked so). */
  account: Banking | null;
}

export type BlockBankingCommand = {
  type: 'BlockBanking';
  traceNumber: string;
  inboundFileId: string;
  returnCode: string;
  description: string;
  action: 'block-account' | 'investigate';
  /** The last four characters of the account the returned entry paid. */
  accountLast4: string;
  now: string;
};

export type ProposeBankCorrectionCommand = {
  type: 'ProposeBankCorrection';
  traceNumber: string;
  inboundFileId: string;
  changeCode: string;
  description: string;
  /** Nacha's six banking days (YYYY-MM-DD). */
  dueBy: string;
  /** The bank's corrected data, opened; null where the notification carries none. */
  corrected: {
    routingNumber: string | null;
    accountNumber: string | null;
    accountType: AccountType | null;
  };
  /** The id the held change gets (derived by the caller from the entry and the bank file). */
  changeId: string;
  now: string;
};

export type BankAnswerCommand = BlockBankingCommand | ProposeBankCorrectionCommand;

/** The key an answer is remembered by: a return once per entry, a NOC once per entry and bank file. */
export const returnKey = (traceNumber: string) => `return:${traceNumber}`;
export const correctionKey = (traceNumber: string, inboundFileId: string) =>
  `correction:${traceNumber}:${inboundFileId}`;

/** The answers the vendor's stream has acted on, after this event. */
export function answersAfter(seen: ReadonlySet<string>, event: VendorEvent): ReadonlySet<string> {
  let key: string | null = null;
  if (event.type === 'VendorBankingBlocked') key = returnKey(event.data.traceNumber);
  else if (event.type === 'VendorBankNoticeNoted')
    key =
      event.data.kind === 'return'
        ? returnKey(event.data.traceNumber)
        : correctionKey(event.data.traceNumber, event.data.inboundFileId);
  else if (event.type === 'VendorBankingChangeRequested' && event.data.noc)
    key = correctionKey(event.data.noc.traceNumber, event.data.noc.inboundFileId);
  return key === null || seen.has(key) ? seen : new Set([...seen, key]);
}

const tail = (account: string) => account.trim().slice(-4);

function noted(
  vendorId: number,
  kind: 'return' | 'correction',
  c: { traceNumber: string; inboundFileId: string; code: string; description: string },
  note: string,
  dueBy: string | null,
  at: string,
): VendorEvent {
  const { traceNumber, inboundFileId, code, description } = c;
  return {
    type: 'VendorBankNoticeNoted',
    data: { vendorId, kind, traceNumber, inboundFileId, code, description, note, dueBy, at },
  };
}

/**
 * A return blocks the live account it paid. A return of an account that is no longer the live one
 * (changed since the file), or of a vendor without banking, blocks nothing: it is noted.
 */
export function blockBanking(
  vendorId: number,
  live: Banking | null,
  seen: ReadonlySet<string>,
  command: BlockBankingCommand,
): VendorEvent[] {
  if (seen.has(returnKey(command.traceNumber))) return [];
  const { traceNumber, inboundFileId, returnCode, description, action, accountLast4, now } = command;
  const answer = { traceNumber, inboundFileId, code: returnCode, description };
  if (!live)
    return [noted(vendorId, 'return', answer, 'No bank details on record now: nothing to block', null, now)];
  if (tail(live.accountNumber) !== accountLast4)
    return [
      noted(
        vendorId,
        'return',
        answer,
        'The returned payment went to an account that is no longer the live one: nothing blocked',
        null,
        now,
      ),
    ];
  return [
    {
      type: 'VendorBankingBlocked',
      data: {
        vendorId,
        traceNumber,
        inboundFileId,
        code: returnCode,
        description,
        action,
        accountLast4,
        at: now,
      },
    },
  ];
}

/** The vendor fields each change code corrects; the codes absent here change no bank detail. */
const CORRECTS: Record<string, ReadonlyArray<'routingNumber' | 'accountNumber' | 'accountType'>> = {
  C01: ['accountNumber'],
  C02: ['routingNumber'],
  C03: ['routingNumber', 'accountNumber'],
  C05: ['accountType'],
  C06: ['accountNumber', 'accountType'],
  C07: ['routingNumber', 'accountNumber', 'accountType'],
};

const NOTHING_TO_CHANGE: Record<string, string> = {
  C04: 'The bank corrected the payee’s name: correct it in QuickBooks if it is wrong; no bank detail changes',
  C09: 'The bank corrected the payee’s identification number; no bank detail changes',
  C13: 'The bank named an addenda format error (the entry posted); no bank detail changes',
};

const FIELD_NAMES = {
  routingNumber: 'routing number',
  accountNumber: 'account number',
  accountType: 'account type',
};

/**
 * The banking a notification of change proposes: the live banking with the fields its code corrects
 * replaced by the bank's corrected data (C05 keeps the live numbers and changes the type), or the
 * note that says why it proposes nothing.
 */
export function correctionOf(
  vendorId: number,
  live: Banking | null,
  pending: { banking: Banking; frozen: boolean } | null,
  command: ProposeBankCorrectionCommand,
): { banking: Banking } | { note: VendorEvent } {
  const { traceNumber, inboundFileId, changeCode, description, dueBy, corrected, now } = command;
  const note = (text: string) => ({
    note: noted(
      vendorId,
      'correction',
      { traceNumber, inboundFileId, code: changeCode, description },
      text,
      dueBy,
      now,
    ),
  });
  const fields = CORRECTS[changeCode];
  if (!fields)
    return note(NOTHING_TO_CHANGE[changeCode] ?? 'This change code corrects no bank detail Billflow keeps');
  const missing = fields.filter((f) => corrected[f] === null);
  if (missing.length > 0)
    return note(
      `The notification carries no corrected ${missing.map((f) => FIELD_NAMES[f]).join(' or ')}: nothing proposed`,
    );
  if (!live)
    return note(
      'No bank details on record to correct: enter the vendor’s bank details from the bank’s correction',
    );
  if (pending?.frozen)
    return note(
      `A change reported by the vendor’s contact as not theirs is held: reject it, then enter the corrected bank details by ${dueBy}`,
    );
  const banking: Banking = {
    routingNumber:
      corrected.routingNumber !== null && fields.includes('routingNumber')
        ? corrected.routingNumber
        : live.routingNumber,
    accountNumber:
      corrected.accountNumber !== null && fields.includes('accountNumber')
        ? corrected.accountNumber
        : live.accountNumber,
    accountType:
      corrected.accountType !== null && fields.includes('accountType')
        ? corrected.accountType
        : live.accountType,
    bankName: live.bankName,
  };
  if (sameNumbers(banking, live)) return note('The live bank details already carry the correction');
  if (pending && sameNumbers(banking, pending.banking))
    return note('The held change already carries the correction: approve it');
  return { banking };
}

const sameNumbers = (a: Banking, b: Banking) =>
  a.routingNumber === b.routingNumber &&
  a.accountNumber === b.accountNumber &&
  a.accountType === b.accountType;

/**
 * A changed account gone live lifts the block (the same account again does not: the return said it
 * cannot take payments). Appended after the decider's events, on record.
 */
export function withUnblock(
  vendorId: number,
  block: BankingBlock | null,
  events: VendorEvent[],
): VendorEvent[] {
  if (!block) return events;
  const live = events.find(
    (e): e is Extract<VendorEvent, { type: 'VendorBankingUpdated' }> => e.type === 'VendorBankingUpdated',
  );
  if (!live || (block.account && sameNumbers(live.data, block.account))) return events;
  return [
    ...events,
    {
      type: 'VendorBankingUnblocked',
      data: {
        vendorId,
        traceNumber: block.traceNumber,
        returnCode: block.returnCode,
        changeId: live.data.changeId ?? null,
        accountLast4: live.data.accountNumber ? shownTail(live.data.accountNumber) : null,
        at: live.data.at,
      },
    },
  ];
}
