// Shapes of the REST API (spec 1 §3, §7): the envelope every call answers with, and the user.

export type Role = 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';

export interface User {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: Role;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

export interface AuthResult {
  user: User;
  tokens: Tokens;
}

export interface FieldError {
  field: string;
  message: string;
}

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export interface ApiEnvelope<T = unknown> {
  success: boolean;
  data?: T;
  error?: string | { message?: string };
  message?: string;
  errors?: FieldError[] | string[];
  meta?: { pagination?: Pagination };
}

export type ManagerStatus = 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';

/** Spec 2 §3 Manager: a contact record, linked to at most one user account. */
export interface Manager {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  title: string | null;
  status: ManagerStatus;
  isActive: boolean;
  userId: number | null;
  user: { id: number; firstName: string | null; lastName: string | null; email: string; role: Role } | null;
  createdAt: string;
  updatedAt: string;
}

export type CompanyStatus = 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';
export type QbConnectionStatus = 'connected' | 'disconnected' | 'error';

/** An assignee as the company carries it: a manager (managerId) or a user. */
export interface Assignee {
  id: number;
  firstName: string | null;
  lastName: string | null;
  email: string;
}

/** Spec 1 §3 Company, with the NACHA fields once configured (the account number masked). */
export interface Company {
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  website: string | null;
  address: string | null;
  description: string | null;
  industry: string | null;
  status: CompanyStatus;
  isActive: boolean;
  qbRealmId: string | null;
  qbConnectionStatus: QbConnectionStatus | null;
  qbLastRefresh: string | null;
  qbPaymentAccountReference: string | null;
  managerId: number | null;
  processorId: number | null;
  approverId: number | null;
  accountantId: number | null;
  manager: Assignee | null;
  processor: Assignee | null;
  approver: Assignee | null;
  accountant: Assignee | null;
  nachaConfigured: boolean;
  bankRoutingNumber?: string;
  bankAccountNumber?: string;
  bankAccountType?: 'checking' | 'savings';
  bankName?: string;
  originatorStatusCode?: string;
  companyTaxId?: string;
  achCompanyId?: string | null;
  immediateDestinationName?: string;
  immediateOriginName?: string;
  companyEntryDescription?: string;
  companyDiscretionaryData?: string | null;
  balancedFile?: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * A company as MODERATOR and USER read it (companies are ADMIN's): its id and name, and for a
 * MODERATOR its connection status. An ADMIN's reads are whole companies, which fit here too.
 */
export interface CompanyChoice {
  id: number;
  name: string;
  qbConnectionStatus?: QbConnectionStatus | null;
}

/** Spec 1 §3 Accounting connection status. */
export interface TokenStatus {
  hasTokens: boolean;
  isExpired: boolean;
  expiresIn: number;
  /** When the company must consent again in QuickBooks (the refresh token's hard expiry). */
  reconsentBy?: string | null;
  /** Less than a week before reconsentBy: the refresh job recorded a warning. */
  reconsentDue?: boolean;
  /** Why the connection needs attention (e.g. the app credentials were refused); null if none. */
  problem?: string | null;
}

/** Spec 1 §3 Credentials info (qbClientId and qbIsSandbox when saved; never the secret). */
export interface CredentialsInfo {
  hasCredentials: boolean;
  qbClientId?: string | null;
  qbIsSandbox?: boolean | null;
}

/** Spec 1 §3 Accounting bank account. */
export interface BankAccount {
  Id: string;
  Name: string;
  AccountType: string;
  AccountSubType?: string;
  Active: boolean;
  CurrentBalance: number;
}

/** Spec 2 §3 Vendor. Numbers are masked ('*****6789') unless the read asked showUnmasked. */
export interface Vendor {
  id: number;
  name: string;
  companyId: number;
  companyName: string | null;
  qbVendorId: string;
  email: string | null;
  phone: string | null;
  active: boolean;
  hasBankingInfo: boolean;
  routingNumber: string | null;
  accountNumber: string | null;
  accountType: 'checking' | 'savings' | null;
  bankName: string | null;
  createdAt: string;
  updatedAt: string;
  qbSyncedAt: string;
  isUnmasked?: boolean;
}

export interface VendorHistoryEntry {
  action: string;
  at: string;
  userId: number | null;
  userName: string | null;
  details: string | null;
}

/** Spec 2 §3 Vendor CSV import result (unchanged: rows without bank details, or the same as stored). */
export interface VendorImportResult {
  processed: number;
  updated: number;
  failed: number;
  unchanged?: number;
  errors: Array<{ row: number; error: string }>;
}

export interface VendorSyncStarted {
  syncId: string;
  companyId: number;
  status: string;
  synced: number;
  failed: number;
}
