// The QuickBooks payment sync card's detail items (spec 2 §3 "Sync detail item"), folded from the
// approval's Qb* events: one item per bill, its latest result. A bill paid stays paid: a later run
// pays only the others, so a paid item is never replaced by a failure.
import type { z } from 'zod';
import type { QbSyncDetailItem } from '../../../schema/approvals/payment-answers.js';
import type { PaymentEvent } from '../../../schema/approvals/payment-events.js';

export type QbSyncItem = z.infer<typeof QbSyncDetailItem>;

type QbResultEvent = Extract<PaymentEvent, { type: 'QbBillPaid' | 'QbBillPaymentFailed' }>;

/** The item one result event makes. */
export function qbSyncItemOf(event: QbResultEvent): QbSyncItem {
  const d = event.data;
  return {
    billId: d.billId,
    docNumber: d.docNumber,
    vendorName: d.vendorName,
    amount: d.amount,
    billPaymentId: event.type === 'QbBillPaid' ? event.data.billPaymentId : null,
    duration: d.durationMs,
    error: event.type === 'QbBillPaymentFailed' ? event.data.error : null,
    success: event.type === 'QbBillPaid',
  };
}

/**
 * The items after one more event (the projection's step): a result replaces the bill's earlier
 * one unless that was a payment; other events leave the items as they are. Order: first result first.
 */
export function foldQbSyncItem(items: readonly QbSyncItem[], event: { type: string }): QbSyncItem[] {
  if (event.type !== 'QbBillPaid' && event.type !== 'QbBillPaymentFailed') return [...items];
  const item = qbSyncItemOf(event as QbResultEvent);
  const at = items.findIndex((i) => i.billId === item.billId);
  if (at === -1) return [...items, item];
  if (items[at].success) return [...items];
  return items.map((i, n) => (n === at ? item : i));
}

/** Every item of an approval's events, in log order. */
export function qbSyncItems(events: Iterable<{ type: string }>): QbSyncItem[] {
  let items: QbSyncItem[] = [];
  for (const e of events) items = foldQbSyncItem(items, e);
  return items;
}

/** `qbPaymentSyncDetails`: the items as JSON text (spec 2 §3), null before any result. */
export const qbSyncDetailsText = (items: readonly QbSyncItem[]) =>
  items.length === 0 ? null : JSON.stringify(items);
