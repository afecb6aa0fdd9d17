// What the bank did with the approval's entries (the payments module's `achentry-<trace>` streams:
// decision 0041), as history steps beside the approval's own (pure): a return, with the bills it
// let go; the voids of their QuickBooks payments; a notification of change, by its tails. An entry
// whose return the approval itself recorded (before the move) is told once, by the approval's event.
import { approvalEvents } from '../../../schema/approvals/events.js';
import { paymentsEvents } from '../../../schema/payments/events.js';
import type { StoredEvent } from '../../eventstore/port.js';
import { eventDecoder } from '../../shared/decider.js';
import { type ApprovalHistoryEntry, actorOf, type HistoryNames, placeOf } from '../history-steps.js';
import { returnedWords, voidedWords } from './payment-history.js';

const decodeEntry = eventDecoder(paymentsEvents);
const decodeOwn = eventDecoder(approvalEvents);

/** The entry streams of the approval's files (each vendor's trace number; older files have none). */
export function entryStreamsOf(events: readonly StoredEvent[]): string[] {
  const traces = new Set<string>();
  for (const stored of events) {
    if (stored.type !== 'NachaFileGenerated') continue;
    const e = decodeOwn(stored, { sealed: 'absent' });
    if (e.type !== 'NachaFileGenerated') continue;
    for (const v of e.data.vendors) if (v.traceNumber) traces.add(`achentry-${v.traceNumber}`);
  }
  return [...traces];
}

export function entrySteps(
  own: readonly StoredEvent[],
  entryEvents: readonly StoredEvent[],
  users: HistoryNames['users'],
): ApprovalHistoryEntry[] {
  const docNumbers = new Map<string, string | null>();
  const toldByApproval = new Set<string>();
  for (const stored of own) {
    if (stored.type === 'ApprovalCreated') {
      const e = decodeOwn(stored, { sealed: 'absent' });
      if (e.type === 'ApprovalCreated')
        for (const b of e.data.bills) docNumbers.set(b.Id, b.DocNumber || null);
    } else if (stored.type === 'PaymentReturnRecorded' || stored.type === 'QbBillPaymentVoided')
      toldByApproval.add(`${stored.type}-${(stored.data as { traceNumber: string }).traceNumber}`);
  }
  const out: ApprovalHistoryEntry[] = [];
  for (const stored of entryEvents) {
    const e = decodeEntry(stored, { sealed: 'absent' });
    let words: ReturnType<typeof returnedWords>;
    if (e.type === 'PaymentEntryReturned') {
      if (toldByApproval.has(`PaymentReturnRecorded-${e.data.traceNumber}`)) continue;
      const bills = (e.data.bills ?? []).map((b) => ({
        billId: b.billId,
        docNumber: docNumbers.get(b.billId) ?? null,
      }));
      words = returnedWords(e.data, bills);
    } else if (e.type === 'PaymentEntryQbVoided') {
      if (toldByApproval.has(`QbBillPaymentVoided-${e.data.traceNumber}`)) continue;
      words = voidedWords(e.data);
    } else if (e.type === 'PaymentEntryCorrectionReceived') {
      const d = e.data;
      const to = [
        d.correctedAccountLast4 ? `account ending ${d.correctedAccountLast4}` : null,
        d.correctedRoutingLast4 ? `routing number ending ${d.correctedRoutingLast4}` : null,
        d.correctedAccountType ? `a ${d.correctedAccountType} account` : null,
        d.correctedName ? 'a corrected name' : null,
      ].filter(Boolean);
      words = [
        `The bank corrected ${d.vendorName}'s bank details`,
        `${d.changeCode} ${d.description}${to.length ? `: ${to.join(', ')}` : ''}; to be applied by ${d.dueBy}`,
        { reason: `${d.changeCode} ${d.description}` },
      ];
    } else continue;
    const [action, details, more] = words;
    out.push({
      ...placeOf(stored),
      action,
      ...actorOf(stored, users),
      details,
      amount: more.amount ?? null,
      threshold: null,
      managerName: null,
      changes: [],
      reason: more.reason ?? null,
      downloadUrl: null,
    });
  }
  return out;
}
