// What the bank pays and what QuickBooks then records, as two pure rules, so the books match the bank:
// - `planFileBills`: what a payment file pays per approved bill (its open balance, never above the
//   approved one; a bill whose balance is 0, not a number or below zero is left out, named);
// - `billPaymentStep`: what the QuickBooks sync does for one bill of the uploaded file: record the
//   exact sum the file paid for it, find the payment an earlier run made, or fail aloud. It never
//   records another sum and never pays a bill the file left out (those are not handed to it).
import type { BillSnapshot } from '../../../schema/approvals/events.js';
import { payableAmount } from './approved-amount.js';

export interface PlannedVendor {
  cents: number;
  bills: Array<{ billId: string; amountCents: number }>;
  docs: string[];
}

export interface FilePlan {
  /** QuickBooks vendor id → its credit, in the bills' order. */
  vendors: Map<string, PlannedVendor>;
  skippedBills: Array<{ billId: string; docNumber: string | null; reason: string }>;
}

/**
 * The file's credits from the approved bills and, where the company is connected, their balances
 * read afresh from QuickBooks (null: not connected, the approved balances stand).
 */
export function planFileBills(
  bills: ReadonlyArray<Pick<BillSnapshot, 'Id' | 'DocNumber' | 'Balance' | 'VendorRef'>>,
  balances: ReadonlyMap<string, unknown> | null,
): FilePlan {
  const skippedBills: FilePlan['skippedBills'] = [];
  const vendors = new Map<string, PlannedVendor>();
  for (const b of bills) {
    if (balances && !balances.has(b.Id)) {
      skippedBills.push({ billId: b.Id, docNumber: b.DocNumber, reason: 'no longer in QuickBooks' });
      continue;
    }
    // Never more than was approved (approved-amount.ts).
    const payable = payableAmount(balances ? balances.get(b.Id) : b.Balance, b.Balance);
    if ('invalid' in payable) {
      skippedBills.push({ billId: b.Id, docNumber: b.DocNumber, reason: payable.invalid });
      continue;
    }
    if (payable.cents <= 0) {
      skippedBills.push({ billId: b.Id, docNumber: b.DocNumber, reason: 'already paid in QuickBooks' });
      continue;
    }
    const v = vendors.get(b.VendorRef.value) ?? { cents: 0, bills: [], docs: [] };
    v.cents += payable.cents;
    v.bills.push({ billId: b.Id, amountCents: payable.cents });
    v.docs.push(b.DocNumber ?? b.Id);
    vendors.set(b.VendorRef.value, v);
  }
  return { vendors, skippedBills };
}

const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export type BillPaymentStep = { pay: number } | { found: string } | { error: string };

/**
 * One bill of the uploaded file: `fileCents` is what the bank paid for it (null: not recorded, on a
 * file made before per-bill amounts were kept), `balance` its open balance in QuickBooks now, `ours`
 * a BillPayment of it that an earlier run of this approval made (its answer lost, or not recorded).
 */
export function billPaymentStep(input: {
  fileCents: number | null;
  balance: unknown;
  ours: string | null;
  othersPayments: readonly string[];
}): BillPaymentStep {
  const { fileCents, balance, ours } = input;
  if (ours) return { found: ours };
  if (fileCents === null)
    return {
      error:
        'The file did not record what it paid for this bill (a file made before per-bill amounts were kept): record the payment in QuickBooks by hand',
    };
  const now = payableAmount(balance, Number.MAX_SAFE_INTEGER);
  if ('invalid' in now) return { error: `${now.invalid} for this bill: not recorded` };
  if (now.cents === 0) {
    const by = input.othersPayments.length > 0 ? ` (BillPayment ${input.othersPayments.join(', ')})` : '';
    return { error: `Already paid in QuickBooks${by}, not by Billflow: no second payment was made` };
  }
  if (now.cents < fileCents)
    return {
      error: `QuickBooks shows an open balance of ${money(now.cents)}, below the ${money(fileCents)} the bank paid: not recorded, check the bill in QuickBooks`,
    };
  return { pay: fileCents };
}
