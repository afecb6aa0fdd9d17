// A QuickBooks bill as an approval snapshots it, for tests of the approvals' decider, projection,
// history and time travel: one vendor (Acme Paper, QuickBooks id 55), due in December.
import type { BillSnapshot } from '../../schema/approvals/events.js';

export const billSnapshot = (id: string, amount: number, more: Partial<BillSnapshot> = {}): BillSnapshot => ({
  Id: id,
  DocNumber: `INV-${id}`,
  TxnDate: '2026-11-01',
  DueDate: '2026-12-01',
  TotalAmt: amount,
  Balance: amount,
  CurrencyRef: 'USD',
  VendorRef: { value: '55', name: 'Acme Paper' },
  VendorInfo: { CompanyName: 'Acme Paper' },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
  ...more,
});
