// The Approvals calls (spec 2 §7 Approvals; issue 12): list, stats, detail, history, create from
// QuickBooks bills, approve a subset, reject, delete, bulk approve and reject, invoice download, the
// company's segregation-of-duties policy and the dashboard's chart data.
import { api } from '../../../lib/api-client';
import { downloadFile } from '../../../lib/transfer';
import type { CompanyChoice } from '../../../types/api';
import type { ApprovalSort, PageSize } from '../utils/approval-rules';

export type ApprovalStatus =
  | 'PENDING'
  | 'APPROVED'
  | 'REJECTED'
  | 'EXPIRED'
  | 'NACHA_GENERATED'
  | 'NACHA_PENDING'
  | 'BANK_UPLOADED'
  | 'PAYMENT_COMPLETED';
export type Priority = 'URGENT' | 'HIGH' | 'MEDIUM' | 'LOW';

export interface Person {
  id: number;
  firstName: string | null;
  lastName: string | null;
}

export interface ApprovalBill {
  Id: string;
  DocNumber: string | null;
  TxnDate: string | null;
  DueDate: string | null;
  TotalAmt: number;
  Balance: number;
  CurrencyRef: string | null;
  VendorRef: { value: string; name: string | null };
  VendorInfo: { CompanyName: string | null; Email: string | null; Phone: string | null };
  VendorAddr: {
    Line1: string | null;
    City: string | null;
    CountrySubDivisionCode: string | null;
    PostalCode: string | null;
  } | null;
  Line: Array<{
    Id: string;
    Description: string | null;
    Amount: number;
    Qty: number | null;
    ItemName: string | null;
    AccountName: string | null;
  }>;
  AttachableId: string | null;
  InvoiceFileName: string | null;
  invoiceAvailable: boolean;
  achStatus: {
    hasBankingInfo: boolean;
    vendorId: number | null;
    bankName: string | null;
    accountType: 'checking' | 'savings' | null;
    routingNumber: string | null;
    accountNumber: string | null;
  };
}

export interface Approval {
  id: string;
  companyId: number;
  companyName: string | null;
  company: { id: number; name: string } | null;
  status: ApprovalStatus;
  priority: Priority;
  billIds: string;
  approvedBillIds: string;
  billIdList: string[];
  approvedBillIdList: string[];
  billCount: number;
  approvedBillCount: number;
  approvalRate: number;
  totalAmount: number;
  approvedAmount: number;
  billStats: { totalAmount: number; totalAmountApproved: number };
  billsParsed: ApprovalBill[] | null;
  approvedBillsParsed: ApprovalBill[] | null;
  managerId: number | null;
  managerName: string | null;
  managerEmail: string | null;
  manager: {
    id: number;
    firstName: string;
    lastName: string;
    title: string | null;
    email: string;
    phone: string | null;
  } | null;
  createdBy: number | null;
  creator: Person | null;
  approvedBy: number | null;
  approver: Person | null;
  rejectedBy: number | null;
  rejecter: Person | null;
  firstApprovedBy: number | null;
  firstApprover: Person | null;
  firstApprovedAt: string | null;
  awaitingSecondApproval: boolean;
  /** The company's policy as it bears on this approval. */
  creatorMayNotApprove: boolean;
  secondApprovalThreshold: number | null;
  secondApprovalRequired: boolean;
  /** For the signed-in viewer, decided by the server (which still judges each approve). */
  viewerMayApprove: boolean;
  approveBlockedReason: string | null;
  approvalDate: string | null;
  rejectionDate: string | null;
  rejectionReason: string | null;
  expiresAt: string;
  expiredAt: string | null;
  recipients: string[] | null;
  confirmedDuplicates: Array<{
    billId: string;
    matchesBillId: string;
    matchesApprovalId: string | null;
    paid: boolean;
  }>;
  createdAt: string;
  updatedAt: string;
}

export interface ApprovalStats {
  total: number;
  pending: number;
  approved: number;
  rejected: number;
  expired: number;
  processedBills: number;
  approvedBills: number;
  processedTotalAmount: number;
  approvedTotalAmount: number;
}

export interface ApprovalHistoryEntry {
  id: string;
  action: string;
  userId: number | null;
  userName: string | null;
  timestamp: string;
  details: string | null;
  downloadUrl: string | null;
}

export interface BillForApproval {
  id: string;
  docNumber: string | null;
  txnDate: string | null;
  dueDate: string | null;
  amount: number;
  balance: number;
  vendorQbId: string;
  vendorName: string | null;
  vendorId: number | null;
  bankingReady: boolean;
  inOpenApproval: boolean;
  openApprovalId: string | null;
  possibleDuplicate: boolean;
  /** In an approval (approvalId), or already paid in QuickBooks (paid). */
  duplicateOf: { billId: string; approvalId: string | null; paid?: boolean } | null;
  /** Why it cannot go in an approval (an amount no ACH payment carries); null when it can. */
  refusedReason?: string | null;
}

export interface BulkResult {
  results: Array<{ id: string; success: boolean; status: ApprovalStatus | null; error: string | null }>;
  summary: { processed: number; succeeded: number; failed: number };
}

export interface ApprovalPolicy {
  companyId: number;
  creatorMayNotApprove: boolean;
  secondApprovalThreshold: number | null;
  /** Only staff assigned to the company (and admins) see and act on its approvals. */
  assignedStaffOnly: boolean;
}

export interface ApprovalsByDay {
  date: string;
  pending: number;
  approved: number;
  rejected: number;
  expired: number;
  total: number;
}

export interface ApprovalFilters {
  search: string;
  companyId: string;
  status: string;
  priority: string;
}

export interface ApprovalPage {
  data: Approval[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

const A = '/api/bill-approval/approvals';

export async function getApprovals(
  filters: ApprovalFilters,
  page: number,
  limit: PageSize,
  sort: ApprovalSort,
  signal?: AbortSignal,
): Promise<ApprovalPage> {
  const res = await api.get<Approval[]>(A, {
    query: {
      search: filters.search.trim() || undefined,
      companyId: filters.companyId || undefined,
      status: filters.status || undefined,
      priority: filters.priority || undefined,
      page,
      limit,
      sortBy: sort.key,
      sortOrder: sort.direction,
    },
    signal,
    fallbackMessage: 'Failed to fetch approvals',
  });
  const p = res.meta?.pagination;
  const total = p?.total ?? res.data?.length ?? 0;
  return {
    data: res.data ?? [],
    total,
    page: p?.page ?? page,
    limit: p?.limit ?? limit,
    totalPages: p?.totalPages ?? Math.max(1, Math.ceil(total / limit)),
  };
}

export async function getApprovalStats(signal?: AbortSignal): Promise<ApprovalStats> {
  const res = await api.get<ApprovalStats>(`${A}/stats`, {
    signal,
    fallbackMessage: 'Failed to fetch approval stats',
  });
  if (!res.data) throw new Error('Failed to fetch approval stats');
  return res.data;
}

export async function getApproval(id: string, signal?: AbortSignal): Promise<Approval> {
  const res = await api.get<Approval>(`${A}/${encodeURIComponent(id)}`, {
    signal,
    fallbackMessage: 'Approval not found',
  });
  if (!res.data) throw new Error('Approval not found');
  return res.data;
}

export async function getApprovalHistory(id: string, signal?: AbortSignal): Promise<ApprovalHistoryEntry[]> {
  const res = await api.get<ApprovalHistoryEntry[]>(`${A}/${encodeURIComponent(id)}/history`, {
    signal,
    fallbackMessage: 'Failed to fetch approval history',
  });
  return res.data ?? [];
}

export async function approveApproval(id: string, approvedBills: string[]) {
  const res = await api.put<Approval>(
    `${A}/${encodeURIComponent(id)}/approve`,
    { approvedBills },
    { fallbackMessage: 'Failed to approve approval' },
  );
  return res.data;
}

export async function rejectApproval(id: string, rejectionReason: string) {
  const res = await api.put<Approval>(
    `${A}/${encodeURIComponent(id)}/reject`,
    { rejectionReason },
    { fallbackMessage: 'Failed to reject approval' },
  );
  return res.data;
}

export async function deleteApproval(id: string): Promise<void> {
  await api.delete<null>(`${A}/${encodeURIComponent(id)}`, { fallbackMessage: 'Failed to delete approval' });
}

export async function bulkApprove(ids: string[]): Promise<BulkResult> {
  const res = await api.post<BulkResult>(
    `${A}/bulk-approve`,
    { ids },
    {
      fallbackMessage: 'Bulk approve failed',
      timeoutMs: 60_000,
    },
  );
  if (!res.data) throw new Error('Bulk approve failed');
  return res.data;
}

export async function bulkReject(ids: string[], reason: string): Promise<BulkResult> {
  const res = await api.post<BulkResult>(
    `${A}/bulk-reject`,
    { ids, reason },
    {
      fallbackMessage: 'Bulk reject failed',
      timeoutMs: 60_000,
    },
  );
  if (!res.data) throw new Error('Bulk reject failed');
  return res.data;
}

export interface CreateApprovalBody {
  companyId: number;
  billIds: string[];
  managerId?: number;
  priority: Priority;
  confirmDuplicates: string[];
}

export async function createApproval(body: CreateApprovalBody): Promise<Approval> {
  const res = await api.post<Approval>(A, body, {
    fallbackMessage: 'Failed to create approval',
    timeoutMs: 30_000,
  });
  if (!res.data) throw new Error('Failed to create approval');
  return res.data;
}

export async function getBillsForApproval(companyId: string, signal?: AbortSignal) {
  const res = await api.get<BillForApproval[]>('/api/bill-approval/bills', {
    query: { companyId },
    signal,
    fallbackMessage: 'Failed to fetch bills',
    timeoutMs: 30_000,
  });
  return res.data ?? [];
}

/** The invoice PDF of a bill, saved under the server's file name. */
export function downloadInvoice(approvalId: string, bill: ApprovalBill): Promise<string> {
  return downloadFile(
    `${A}/${encodeURIComponent(approvalId)}/bills/${encodeURIComponent(bill.Id)}/invoice`,
    bill.InvoiceFileName ?? `invoice-${bill.Id}.pdf`,
    'Unable to download invoice. Please try again.',
  );
}

export async function getApprovalPolicy(companyId: string, signal?: AbortSignal): Promise<ApprovalPolicy> {
  const res = await api.get<ApprovalPolicy>(`/api/bill-approval/policies/${encodeURIComponent(companyId)}`, {
    signal,
    fallbackMessage: 'Failed to fetch the approval policy',
  });
  if (!res.data) throw new Error('Failed to fetch the approval policy');
  return res.data;
}

export async function setApprovalPolicy(
  companyId: string,
  body: Omit<ApprovalPolicy, 'companyId'>,
): Promise<ApprovalPolicy> {
  const res = await api.put<ApprovalPolicy>(
    `/api/bill-approval/policies/${encodeURIComponent(companyId)}`,
    body,
    { fallbackMessage: 'Failed to save the approval policy' },
  );
  if (!res.data) throw new Error('Failed to save the approval policy');
  return res.data;
}

/** The company filter's choices (up to 1000, spec 2 §2). */
export async function getCompanyChoices(signal?: AbortSignal): Promise<CompanyChoice[]> {
  const res = await api.get<CompanyChoice[]>('/api/company/companies', {
    query: { page: 1, limit: 1000 },
    signal,
    fallbackMessage: 'Failed to fetch companies',
  });
  return res.data ?? [];
}

export interface ManagerOption {
  id: number;
  /** 'first last', else the e-mail. */
  displayName: string;
  email: string;
}

/** The manager picker of /bills and the edit dialog: ACTIVE managers (ADMIN and MODERATOR may read it). */
export async function getManagerOptions(signal?: AbortSignal): Promise<ManagerOption[]> {
  const res = await api.get<ManagerOption[]>('/api/bill-approval/manager-options', {
    signal,
    fallbackMessage: 'Failed to fetch managers',
  });
  return res.data ?? [];
}

export interface UpdateApprovalBody {
  priority?: Priority;
  /** null clears the manager. */
  managerId?: number | null;
  recipients?: string[];
}

/** PUT /approvals/{id}: what may change while PENDING. */
export async function updateApproval(id: string, body: UpdateApprovalBody): Promise<Approval> {
  const res = await api.put<Approval>(`${A}/${encodeURIComponent(id)}`, body, {
    fallbackMessage: 'Failed to update approval',
  });
  if (!res.data) throw new Error('Failed to update approval');
  return res.data;
}

/** The filtered list as a CSV file (the server's export, saved under its file name). */
export function exportApprovals(filters: ApprovalFilters): Promise<string> {
  const q = new URLSearchParams();
  if (filters.search.trim()) q.set('search', filters.search.trim());
  if (filters.companyId) q.set('companyId', filters.companyId);
  if (filters.status) q.set('status', filters.status);
  if (filters.priority) q.set('priority', filters.priority);
  q.set('format', 'csv');
  return downloadFile(`${A}/export?${q}`, 'approvals-export.csv', 'Failed to export approvals');
}
