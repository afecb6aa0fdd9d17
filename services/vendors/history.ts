// A vendor's history: read from its own stream, so unmasks show with who and when.
import type { VendorHistoryEntry } from '../../schema/vendors/answers.js';
import {
  type BankingSource,
  type BankingVerification,
  shownTail,
  type VendorEvent,
} from '../../schema/vendors/events.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { vendorStreamId } from './vendor-decider.js';
import { parseId, requireVendor } from './vendor-rows.js';

// The answer is written once in schema/vendors/answers.ts; this name stays for its users.
export type { VendorHistoryEntry };

const accountEnding = (n: string | null) => {
  const tail = n === null ? '' : shownTail(n);
  return tail ? `account ending ${tail}` : 'account number masked';
};

const SOURCE: Record<BankingSource, string> = {
  form: 'the banking form',
  batch: 'a batch update',
  csv: 'a CSV import',
  noc: 'a bank’s notification of change',
};

const VERIFIED: Record<BankingVerification['kind'], string> = {
  'second-person': 'approved by a second person',
  'micro-deposits': 'verified by the vendor’s micro-deposit amounts',
  'control-off': 'live at once: the company’s control on bank detail changes was off',
};

const nocLine = (code: string, description: string) =>
  `Bank’s notification of change ${code} (${description})`;

/** What a notification of change corrects, old → new, in tails and types only. */
function correctedParts(d: Extract<VendorEvent, { type: 'VendorBankingChangeRequested' }>['data']): string[] {
  const before = d.previous;
  const parts: string[] = [];
  if (before?.accountLast4 !== d.accountLast4)
    parts.push(`${endingOf(before?.accountLast4 ?? null, null)} → ending ${d.accountLast4 ?? '—'}`);
  if (before?.routingLast4 !== d.routingLast4)
    parts.push(`routing ending ${before?.routingLast4 ?? '—'} → ending ${d.routingLast4 ?? '—'}`);
  if (before?.accountType !== d.accountType)
    parts.push(`account type ${before?.accountType ?? '—'} → ${d.accountType}`);
  return parts.length > 0 ? parts : ['the same tails, another number'];
}

/** The tail an event carries in plain, else cut from the number (events before tails were kept). */
const endingOf = (tail: string | null, number: string | null) =>
  tail ? `account ending ${tail}` : accountEnding(number);

const HISTORY: Record<VendorEvent['type'], (e: VendorEvent) => { action: string; details: string | null }> = {
  VendorCreated: () => ({ action: 'Synced from QuickBooks', details: 'First seen in QuickBooks' }),
  VendorChangedInQuickBooks: (e) => ({
    action: 'Changed in QuickBooks',
    details: `Changed: ${Object.keys(e.data)
      .filter((k) => k !== 'vendorId' && k !== 'syncedAt')
      .join(', ')}`,
  }),
  VendorBankingUpdated: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingUpdated' }>['data'];
    const how = d.verifiedBy ? `; ${VERIFIED[d.verifiedBy.kind]}` : '';
    return {
      action:
        d.changeId && d.verifiedBy?.kind !== 'control-off' ? 'Bank details change live' : 'Banking updated',
      details: `From ${SOURCE[d.source]}; ${endingOf(d.accountLast4, d.accountNumber)}${how}`,
    };
  },
  VendorBankingChangeRequested: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingChangeRequested' }>['data'];
    if (d.noc)
      return {
        action: 'Bank details change held for approval',
        details: `${nocLine(d.noc.code, d.noc.description)}: ${correctedParts(d).join('; ')}, due by ${d.noc.dueBy}. An ADMIN approves it`,
      };
    const before = d.previous ? endingOf(d.previous.accountLast4, null) : 'no bank details before';
    return {
      action: 'Bank details change held for approval',
      details: `From ${SOURCE[d.source]}; ${before} → ${endingOf(d.accountLast4, null)} (${d.accountType}); routing ending ${d.routingLast4 ?? '—'}${d.replaces ? '; replaces the change pending before' : ''}`,
    };
  },
  VendorBankingChangeApproved: (e) => ({
    action: 'Bank details change approved',
    details: `Reason: ${(e.data as { reason: string }).reason}`,
  }),
  VendorBankingChangeRejected: (e) => ({
    action: 'Bank details change rejected',
    details: `Reason: ${(e.data as { reason: string }).reason}`,
  }),
  VendorBankingChangeFrozen: () => ({
    action: 'Bank details change frozen',
    details:
      'The vendor’s contact on record said the change was not theirs; the company’s ADMINs were alerted',
  }),
  VendorBankingChangeNoticed: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingChangeNoticed' }>['data'];
    return d.outcome === 'sent'
      ? {
          action: 'Vendor’s contact told of the change',
          details:
            'Notice with the last four digits old and new and a "this was not me" link, sent to the e-mail on record before the change',
        }
      : {
          action: 'Vendor’s contact could not be told',
          details: 'No e-mail on record before the change: nobody received a notice',
        };
  },
  VendorBankingMailEnded: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingMailEnded' }>['data'];
    const what = d.mail === 'change-notice' ? 'The notice of the change' : 'The micro-deposit link';
    return d.outcome === 'failed'
      ? {
          action:
            d.mail === 'change-notice'
              ? 'Notice to the vendor’s contact not delivered'
              : 'Micro-deposit link not delivered',
          details: `${what} to the e-mail on record was not delivered${d.reason ? ` (${d.reason})` : ''}: the vendor may not know of the change. Check with the vendor on a number already on file`,
        }
      : {
          action:
            d.mail === 'change-notice'
              ? 'Notice to the vendor’s contact delivered'
              : 'Micro-deposit link delivered',
          details: `${what} went out after an earlier failure`,
        };
  },
  VendorMicroDepositsSent: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorMicroDepositsSent' }>['data'];
    return {
      action: 'Micro-deposit check started',
      details: `Two credits under $1.00 to the ${endingOf(d.accountLast4, null)} in ${d.fileName} (effective ${d.effectiveDate}); the vendor’s contact was sent a link to enter them (${d.tries} tries)`,
    };
  },
  VendorMicroDepositsMismatched: (e) => {
    const { triesLeft } = e.data as { triesLeft: number };
    return {
      action: triesLeft === 0 ? 'Micro-deposit check locked' : 'Wrong micro-deposit amounts entered',
      details:
        triesLeft === 0
          ? 'The third wrong entry through the vendor’s link: only a new check or a second person’s approval can make the change live'
          : `Through the vendor’s link; ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left`,
    };
  },
  VendorMicroDepositsConfirmed: () => ({
    action: 'Micro-deposits confirmed',
    details: 'The vendor’s contact entered the right amounts through its link',
  }),
  VendorMicroDepositsFileDownloaded: () => ({
    action: 'Micro-deposit file downloaded',
    details: 'The NACHA file of the micro-deposit check',
  }),
  VendorBankingBlocked: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingBlocked' }>['data'];
    return {
      action: 'Payments blocked',
      details: `The bank returned a payment to the account ending ${d.accountLast4} (${d.code} ${d.description}; trace ${d.traceNumber}): no file pays this vendor until changed bank details go live`,
    };
  },
  VendorBankingUnblocked: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankingUnblocked' }>['data'];
    return {
      action: 'Payments unblocked',
      details: `Changed bank details went live (${endingOf(d.accountLast4, null)}) after the ${d.returnCode} return: files pay this vendor again`,
    };
  },
  VendorBankNoticeNoted: (e) => {
    const d = e.data as Extract<VendorEvent, { type: 'VendorBankNoticeNoted' }>['data'];
    return d.kind === 'correction'
      ? {
          action: 'Bank’s notification of change noted',
          details: `${nocLine(d.code, d.description)}: ${d.note}${d.dueBy ? ` (due by ${d.dueBy})` : ''}`,
        }
      : {
          action: 'Bank’s return noted',
          details: `Return ${d.code} (${d.description}; trace ${d.traceNumber}): ${d.note}`,
        };
  },
  VendorBankingCleared: () => ({ action: 'Banking cleared', details: null }),
  VendorRemittanceAdviceSet: (e) => {
    const on = (e.data as { enabled: boolean }).enabled;
    return {
      action: on ? 'Remittance advice turned on' : 'Remittance advice turned off',
      details: on
        ? 'The vendor is mailed what it was paid when a file paying it goes to the bank'
        : 'The vendor is no longer mailed what it was paid',
    };
  },
  VendorBankingUnmasked: (e) => {
    const exported = (
      e.data as { export?: { companyId: number | null; includeInactive: boolean; vendors: number } }
    ).export;
    if (!exported) return { action: 'Banking unmasked', details: 'Full bank numbers shown' };
    // An export of one company held this vendor, so that company is the vendor's own.
    const of = exported.companyId === null ? 'every company' : 'its company';
    const which = exported.includeInactive ? 'active and inactive vendors' : 'active vendors';
    const count = `${exported.vendors} vendor${exported.vendors === 1 ? '' : 's'}`;
    return {
      action: 'Banking unmasked',
      details: `Full bank numbers exported to CSV: ${count} (${which} of ${of})`,
    };
  },
  VendorForgotten: () => ({ action: 'Forgotten', details: 'Contacts and bank details erased' }),
};

/** The vendor's history from its stream, newest first: who did what and when, unmasks included. */
export async function vendorHistory(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<VendorHistoryEntry[]> {
  authorize(actor, 'vendors.read');
  const row = await requireVendor(app, actor, parseId(id));
  const { events } = await app.store.readStream(vendorStreamId(row.company_id, row.qb_vendor_id));
  const userIds = [
    ...new Set(events.map((e) => Number(e.metadata.userId)).filter((n) => Number.isInteger(n) && n > 0)),
  ];
  const names = new Map<number, string>();
  if (userIds.length > 0)
    for (const u of await app.db
      .selectFrom('users')
      .select(['id', 'first_name', 'last_name', 'email'])
      .where('id', 'in', userIds)
      .execute())
      names.set(u.id, [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email || `User #${u.id}`);
  return events
    .map((stored) => {
      const e = { type: stored.type, data: stored.data } as VendorEvent;
      const line = HISTORY[e.type]?.(e) ?? { action: e.type, details: null };
      const userId = stored.metadata.userId ? Number(stored.metadata.userId) : null;
      return {
        ...line,
        at: stored.createdAt.toISOString(),
        userId,
        userName: userId !== null ? (names.get(userId) ?? `User #${userId}`) : null,
      };
    })
    .reverse();
}
