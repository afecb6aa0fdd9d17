// What each write and each live push makes stale, by root field: a push of `approvalChanged` re-reads
// every active query that selects `approvals`, `approvalStats`, `dashboardStats` … (see
// document-cache.ts). Rules name root query fields, not types, so an empty list (no Approval in its
// answer) and a Boolean-answering mutation (deleteManager) are covered too.
//
// Usage: a new query reads through a root field listed in the group of the data it shows; a new
// mutation or subscription adds its line to WRITES or PUSHES. A mutation without a line refreshes
// every active query (always correct, only chattier); a subscription without one refreshes nothing.

const APPROVAL_READS = [
  'approval',
  'approvals',
  'approvalStats',
  'approvalHistory',
  'approvalBillCandidates',
  'dashboardStats',
  'dashboardApprovalsByStatus',
  'userStatistics',
] as const;
// Who may approve, and (assignedStaffOnly) which companies' approvals staff see: the figures too.
const POLICY_READS = [
  'approvalPolicy',
  'approval',
  'approvals',
  'approvalStats',
  'dashboardStats',
  'dashboardApprovalsByStatus',
] as const;
const COMPANY_READS = [
  'companies',
  'company',
  'searchCompanies',
  'qbTokenStatus',
  'qbCredentials',
  'qbBankAccounts',
  'approvalPolicy',
  'dashboardStats',
  // A company's change is a line of its activity (the push of that line re-reads it too).
  'companyActivity',
  // Approvals and vendors show the company's name.
  'approvals',
  'approval',
  'vendors',
  'vendor',
  // The manager picker marks the company's assigned manager.
  'approvalManagerOptions',
] as const;
const VENDOR_READS = [
  'vendors',
  'vendor',
  'vendorHistory',
  'vendorBankingChanges',
  'approval',
  'approvals',
  'approvalBillCandidates',
] as const;
// The control decides whether a bank detail change is held, and for how many days a change is
// flagged where money is decided.
const BANKING_CONTROL_READS = [
  'bankingChangeControl',
  'approval',
  'approvals',
  'approvalBillCandidates',
] as const;
const MANAGER_READS = [
  'managers',
  'manager',
  'searchManagers',
  'approvalManagerOptions',
  // Companies and approvals show their managers' names.
  'companies',
  'company',
  'approvals',
  'approval',
] as const;
const USER_READS = [
  'users',
  'user',
  'userOverviewStats',
  'userStatistics',
  'me',
  'profile',
  'dashboardStats',
  // A manager shows its linked user.
  'managers',
  'manager',
] as const;
const OPERATION_READS = ['operations', 'systemHealth'] as const;

/** Live pushes (subscription root fields) → the query root fields they make stale. */
export const PUSHES: Record<string, readonly string[]> = {
  approvalChanged: APPROVAL_READS,
  approvalPolicyChanged: POLICY_READS,
  companyChanged: COMPANY_READS,
  vendorChanged: VENDOR_READS,
  managerChanged: MANAGER_READS,
  userChanged: USER_READS,
  // A new line: the dashboard's feed and a company's own (the company detail's Recent Activity).
  activityAdded: ['dashboardStats', 'companyActivity'],
  // The push carries the whole overview, which the screen shows as it comes.
  operationsChanged: [],
  // Progress of one sync: the dialog reads the push itself; the vendors follow from vendorChanged.
  vendorSyncProgress: [],
};

/** Writes (mutation root fields) → the query root fields they make stale. */
export const WRITES: Record<string, readonly string[]> = {
  // Sessions: nothing cached depends on them (a new session starts a new client).
  login: [],
  logout: [],
  refreshTokens: [],
  changePassword: [],
  setUserPassword: [],
  // Approvals
  createApproval: APPROVAL_READS,
  updateApproval: APPROVAL_READS,
  updateApprovalRecipients: APPROVAL_READS,
  approveApproval: APPROVAL_READS,
  rejectApproval: APPROVAL_READS,
  bulkApproveApprovals: APPROVAL_READS,
  bulkRejectApprovals: APPROVAL_READS,
  deleteApproval: APPROVAL_READS,
  setApprovalPolicy: POLICY_READS,
  // Payments: a new file version, a penny test, a QuickBooks sync retry.
  regenerateNacha: APPROVAL_READS,
  approveBankingAgain: APPROVAL_READS,
  generatePennyTest: APPROVAL_READS,
  retryQbSync: APPROVAL_READS,
  resendPaymentLink: APPROVAL_READS,
  confirmPaymentStep: APPROVAL_READS,
  sendWaitingFilesNow: APPROVAL_READS,
  // Companies
  createCompany: COMPANY_READS,
  updateCompany: COMPANY_READS,
  activateCompany: COMPANY_READS,
  deactivateCompany: COMPANY_READS,
  deleteCompany: COMPANY_READS,
  changeCompanyAssignments: COMPANY_READS,
  configureCompanyNacha: COMPANY_READS,
  setCompanyPaymentAccount: COMPANY_READS,
  saveQbCredentials: COMPANY_READS,
  deleteQbCredentials: COMPANY_READS,
  startQbOAuth: COMPANY_READS,
  refreshQbToken: COMPANY_READS,
  setCompanyBankConnection: COMPANY_READS,
  testBankConnection: COMPANY_READS,
  // Vendors
  updateVendorBanking: VENDOR_READS,
  clearVendorBanking: VENDOR_READS,
  forgetVendor: VENDOR_READS,
  setVendorRemittanceAdvice: VENDOR_READS,
  approveVendorBankingChange: VENDOR_READS,
  rejectVendorBankingChange: VENDOR_READS,
  // A micro-deposit check and its file's download are lines of the vendor's history and its change.
  startVendorMicroDeposits: VENDOR_READS,
  downloadVendorMicroDepositFile: VENDOR_READS,
  setBankingChangeControl: BANKING_CONTROL_READS,
  syncVendors: [],
  // Managers
  createManager: MANAGER_READS,
  updateManager: MANAGER_READS,
  deleteManager: MANAGER_READS,
  linkManagerUser: MANAGER_READS,
  unlinkManagerUser: MANAGER_READS,
  // Users
  register: USER_READS,
  updateUser: USER_READS,
  updateProfile: USER_READS,
  changeUserRole: USER_READS,
  deactivateUser: USER_READS,
  reactivateUser: USER_READS,
  deleteUser: USER_READS,
  forgetUser: USER_READS,
  // Operations
  retryFailedJob: OPERATION_READS,
  retryParkedEvent: OPERATION_READS,
  dismissParkedEvent: OPERATION_READS,
};

/** Every active query goes stale (a mutation without a rule, a reconnect after a gap). */
export const EVERYTHING = Symbol('everything');

/** The query root fields that the given mutation or subscription root fields make stale. */
export function staleFieldsOf(
  kind: 'mutation' | 'subscription',
  rootFields: readonly string[],
): Set<string> | typeof EVERYTHING {
  const table = kind === 'mutation' ? WRITES : PUSHES;
  const out = new Set<string>();
  for (const field of rootFields) {
    const rule = table[field];
    // An unknown write may touch anything; an unknown push is for its own screen only.
    if (!rule) {
      if (kind === 'mutation') return EVERYTHING;
      continue;
    }
    for (const f of rule) out.add(f);
  }
  return out;
}
