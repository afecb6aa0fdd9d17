// Fixtures of the vendors' component tests: a vendor as its detail reads it, and a held change of
// its bank details (masked, as the server answers).
import type { BankingChange, VendorDetail } from '../api/vendors';

export const sampleVendor = (over: Partial<VendorDetail> = {}): VendorDetail => ({
  id: 12,
  name: 'Harbor Lumber',
  companyId: 3,
  companyName: 'Sunrise Bakery',
  qbVendorId: '56',
  email: 'billing@harbor-lumber.test',
  phone: null,
  active: true,
  hasBankingInfo: true,
  routingNumber: '*****0025',
  accountNumber: '*******1004',
  accountType: 'checking',
  bankName: 'BofA',
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
  qbSyncedAt: '2026-11-01T10:00:00.000Z',
  isUnmasked: false,
  pendingBankingChange: null,
  bankingBlock: null,
  remittanceAdvice: true,
  ...over,
});

export const sampleChange = (over: Partial<BankingChange> = {}): BankingChange => ({
  changeId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  vendorId: 12,
  status: 'pending',
  source: 'form',
  routingNumber: '*****0021',
  accountNumber: '*******6666',
  accountType: 'checking',
  previousRoutingNumber: '*****0025',
  previousAccountNumber: '*******1004',
  requestedById: 41,
  requestedByName: 'Morgan Moderator',
  requestedAt: '2026-12-05T15:30:00.000Z',
  decidedById: null,
  decidedByName: null,
  decidedAt: null,
  verifiedBy: null,
  reason: null,
  awaiting:
    'An ADMIN or MODERATOR other than Morgan Moderator must approve or reject it, or the vendor confirm the micro-deposits',
  contactNotice: 'sent',
  microDeposits: null,
  ...over,
});
