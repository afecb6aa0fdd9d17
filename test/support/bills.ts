// A QuickBooks bill as an approval snapshots it, and an approval created with such bills, for tests
// of the approvals' decider, projection, history, time travel and audit bundle: one vendor (Acme
// Paper, QuickBooks id 55), due in December.
import type { ApprovalEvent, BillSnapshot } from '../../schema/approvals/events.js';

type ApprovalCreated = Extract<ApprovalEvent, { type: 'ApprovalCreated' }>;

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

/**
 * An ApprovalCreated event: bill 10 of $400, HIGH, no manager, nobody to tell, expiring a week
 * after `at` (now by default); the rest as given.
 */
export function approvalCreated(
  data: Pick<ApprovalCreated['data'], 'approvalId' | 'companyId' | 'createdBy'> &
    Partial<ApprovalCreated['data']>,
): ApprovalCreated {
  const at = data.at ?? new Date().toISOString();
  return {
    type: 'ApprovalCreated',
    data: {
      priority: 'HIGH',
      managerId: null,
      bills: [billSnapshot('10', 400)],
      vendorContacts: [],
      recipients: [],
      confirmedDuplicates: [],
      expiresAt: new Date(Date.parse(at) + 7 * 86_400_000).toISOString(),
      ...data,
      at,
    },
  };
}
