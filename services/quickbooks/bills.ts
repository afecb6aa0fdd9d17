// QuickBooks bills as Billflow reads them: the rows Intuit answers (Bill, Vendor, Attachable), the
// queries that read them, why a bill cannot go in an approval, and its snapshot for the event (text
// cleaned, amounts checked). No Billflow state: the caller brings the company's query function.
import type { BillSnapshot } from '../../schema/approvals/events.js';
import { achAmount, cleanQbId, cleanQbText } from './clean.js';
import { qbStringList } from './query-text.js';

export interface QbBill {
  Id: string;
  DocNumber?: string;
  TxnDate?: string;
  DueDate?: string;
  TotalAmt: number;
  Balance: number;
  CurrencyRef?: { value: string };
  VendorRef: { value: string; name?: string };
  Line?: Array<{
    Id?: string;
    Description?: string;
    Amount?: number;
    ItemBasedExpenseLineDetail?: { Qty?: number; ItemRef?: { name?: string } };
    AccountBasedExpenseLineDetail?: { AccountRef?: { name?: string } };
  }>;
}
export interface QbVendorRow {
  Id: string;
  DisplayName?: string;
  CompanyName?: string;
  PrimaryEmailAddr?: { Address?: string };
  PrimaryPhone?: { FreeFormNumber?: string };
  BillAddr?: { Line1?: string; City?: string; CountrySubDivisionCode?: string; PostalCode?: string };
  Active?: boolean;
}
export interface QbAttachableRow {
  Id: string;
  FileName?: string;
  AttachableRef?: Array<{ EntityRef?: { type?: string; value?: string } }>;
}

const text = (v: unknown, max = 500) => cleanQbText(v, max);

/**
 * Why Billflow cannot put this QuickBooks bill in an approval, or null: its ids are not QuickBooks
 * ids, or an amount is not one an ACH payment can carry.
 */
export function billProblem(b: QbBill): string | null {
  if (!cleanQbId(b.VendorRef?.value)) return 'its vendor reference is not a QuickBooks id';
  for (const [what, v] of [
    ['total', b.TotalAmt],
    ['balance', b.Balance],
  ] as const) {
    const a = achAmount(v);
    if (!a.ok) return a.reason.replace('its amount', `its ${what}`);
  }
  for (const l of b.Line ?? [])
    if (typeof l.Amount === 'number' && !achAmount(l.Amount).ok)
      return 'a line amount is not one an ACH payment can carry';
  return null;
}

/** A QuickBooks amount already checked by billProblem (0 for one that was refused). */
export const amountOf = (v: unknown) => {
  const a = achAmount(v);
  return a.ok ? a.amount : 0;
};

export function snapshotOf(
  b: QbBill,
  vendor: QbVendorRow | undefined,
  att: QbAttachableRow | undefined,
): BillSnapshot {
  return {
    Id: b.Id,
    DocNumber: text(b.DocNumber, 40),
    TxnDate: text(b.TxnDate, 40),
    DueDate: text(b.DueDate, 40),
    TotalAmt: amountOf(b.TotalAmt),
    Balance: amountOf(b.Balance),
    CurrencyRef: text(b.CurrencyRef?.value, 10),
    VendorRef: {
      value: b.VendorRef.value,
      name: text(b.VendorRef.name, 255) ?? text(vendor?.DisplayName, 255),
    },
    VendorInfo: { CompanyName: text(vendor?.CompanyName ?? vendor?.DisplayName, 255) },
    VendorAddr: vendor?.BillAddr
      ? {
          Line1: text(vendor.BillAddr.Line1, 255),
          City: text(vendor.BillAddr.City, 255),
          CountrySubDivisionCode: text(vendor.BillAddr.CountrySubDivisionCode, 40),
          PostalCode: text(vendor.BillAddr.PostalCode, 40),
        }
      : null,
    Line: (b.Line ?? [])
      .filter((l) => typeof l.Amount === 'number')
      .slice(0, 200)
      .map((l, i) => ({
        Id: text(l.Id, 40) ?? String(i + 1),
        Description: text(l.Description, 1000),
        Amount: amountOf(l.Amount),
        Qty:
          typeof l.ItemBasedExpenseLineDetail?.Qty === 'number' &&
          Number.isFinite(l.ItemBasedExpenseLineDetail.Qty) &&
          Math.abs(l.ItemBasedExpenseLineDetail.Qty) < 1e9
            ? l.ItemBasedExpenseLineDetail.Qty
            : null,
        ItemName: text(l.ItemBasedExpenseLineDetail?.ItemRef?.name, 255),
        AccountName: text(l.AccountBasedExpenseLineDetail?.AccountRef?.name, 255),
      })),
    AttachableId: att?.Id ?? null,
    InvoiceFileName: text(att?.FileName, 255),
  };
}

/** A company's QuickBooks query (its client, realm and token bound by the caller). */
export type QbQuery = <T>(query: string) => Promise<{ QueryResponse: T }>;

/** A row without a QuickBooks id, or without a vendor, is nothing Billflow can show or pay. */
export const usableBill = (b: QbBill) =>
  cleanQbId(b.Id) !== null && typeof b.VendorRef === 'object' && b.VendorRef !== null;

/** Bills by id, their vendors (inactive ones too) and their attachables, 100 ids a query. */
export async function readQbBills(q: QbQuery, billIds: string[]) {
  const bills: QbBill[] = [];
  for (let i = 0; i < billIds.length; i += 100) {
    const chunk = billIds.slice(i, i + 100);
    const r = await q<{ Bill?: QbBill[] }>(
      `select * from Bill where Id in (${qbStringList(chunk)}) MAXRESULTS 1000`,
    );
    bills.push(...(r.QueryResponse.Bill ?? []).filter(usableBill));
  }
  const vendorIds = [
    ...new Set(bills.map((b) => cleanQbId(b.VendorRef.value)).filter((v): v is string => v !== null)),
  ];
  const vendors = new Map<string, QbVendorRow>();
  const attachables = new Map<string, QbAttachableRow>();
  for (let i = 0; i < vendorIds.length; i += 100) {
    const r = await q<{ Vendor?: QbVendorRow[] }>(
      // Inactive (or deleted) vendors too: Intuit answers only active ones unless asked.
      `select * from Vendor where Id in (${qbStringList(vendorIds.slice(i, i + 100))}) and Active IN (true,false) MAXRESULTS 1000`,
    );
    for (const v of r.QueryResponse.Vendor ?? []) vendors.set(v.Id, v);
  }
  const ids = bills.map((b) => b.Id);
  for (let i = 0; i < ids.length; i += 100) {
    const r = await q<{ Attachable?: QbAttachableRow[] }>(
      `select * from Attachable where AttachableRef.EntityRef.Type = 'Bill' and AttachableRef.EntityRef.value in (${qbStringList(ids.slice(i, i + 100))}) MAXRESULTS 1000`,
    );
    for (const a of r.QueryResponse.Attachable ?? [])
      for (const ref of a.AttachableRef ?? [])
        if (ref.EntityRef?.type === 'Bill' && ref.EntityRef.value && !attachables.has(ref.EntityRef.value))
          attachables.set(ref.EntityRef.value, a);
  }
  return { bills, vendors, attachables };
}

/** Bills by document number (paid ones included), 100 numbers a query. */
export async function billsByDocNumber(q: QbQuery, docs: string[]): Promise<QbBill[]> {
  const found: QbBill[] = [];
  for (let i = 0; i < docs.length; i += 100) {
    const r = await q<{ Bill?: QbBill[] }>(
      `select * from Bill where DocNumber in (${qbStringList(docs.slice(i, i + 100))}) MAXRESULTS 1000`,
    );
    found.push(...(r.QueryResponse.Bill ?? []));
  }
  return found;
}
