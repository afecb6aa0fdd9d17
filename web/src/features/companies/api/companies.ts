// The Companies calls (spec 1 §7) and the QuickBooks connection calls of the same base path. Each
// answers in the envelope; a failed one throws ApiError with the message the spec's catalogue builds.
import { api } from '../../../lib/api-client';
import type { BankAccount, Company, CredentialsInfo, Manager, TokenStatus, User } from '../../../types/api';
import { COMPANIES_PAGE_SIZE, PICKER_LIMIT } from '../utils/company-rules';

const BASE = '/api/company/companies';

export interface CompanyFilters {
  search: string;
  status: '' | 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';
  qbConnectionStatus: '' | 'connected' | 'disconnected' | 'error' | 'not_connected';
}

export interface CompanyPage {
  data: Company[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** The form's body (spec 1 §5): optional strings absent when empty, assignees null when 'none'. */
export interface CompanyPayload {
  name: string;
  email?: string;
  phone?: string;
  website?: string;
  address?: string;
  description?: string;
  industry?: string;
  managerId: number | null;
  processorId: number | null;
  approverId: number | null;
  accountantId: number | null;
  qbPaymentAccountReference?: string;
}

/** The NACHA form's body (spec 1 §5): digits without dashes, text upper-cased. */
export interface NachaPayload {
  bankRoutingNumber: string;
  bankAccountNumber?: string;
  bankAccountType: 'checking' | 'savings';
  bankName: string;
  originatorStatusCode: string;
  companyTaxId: string;
  achCompanyId?: string;
  immediateDestinationName: string;
  immediateOriginName: string;
  companyEntryDescription: string;
  companyDiscretionaryData?: string;
}

export interface QbCredentialsPayload {
  qbClientId: string;
  qbClientSecret: string;
  qbIsSandbox: boolean;
}

type Assignments = Partial<Pick<CompanyPayload, 'managerId' | 'processorId' | 'approverId' | 'accountantId'>>;

/** GET /api/company/companies (search, status, qbConnectionStatus, page, limit 10). */
export async function getCompanies(
  filters: CompanyFilters,
  page: number,
  signal?: AbortSignal,
  limit = COMPANIES_PAGE_SIZE,
): Promise<CompanyPage> {
  const res = await api.get<Company[]>(BASE, {
    query: {
      search: filters.search.trim() || undefined,
      status: filters.status || undefined,
      qbConnectionStatus: filters.qbConnectionStatus || undefined,
      page,
      limit,
    },
    signal,
    fallbackMessage: 'Failed to fetch companies',
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

export async function getCompany(id: string | number, signal?: AbortSignal): Promise<Company> {
  const res = await api.get<Company>(`${BASE}/${id}`, { signal, fallbackMessage: 'Failed to fetch company' });
  if (!res.data) throw new Error('The requested company could not be found.');
  return res.data;
}

async function companyCall(
  method: 'post' | 'put',
  path: string,
  body: unknown,
  fallbackMessage: string,
): Promise<{ company: Company; message?: string }> {
  const res = await api[method]<Company>(path, body, { fallbackMessage });
  if (!res.data) throw new Error(fallbackMessage);
  return { company: res.data, message: res.message };
}

export const createCompany = (body: CompanyPayload) =>
  companyCall('post', BASE, body, 'Failed to create company');

export const updateCompany = (id: number, body: CompanyPayload) =>
  companyCall('put', `${BASE}/${id}`, body, 'Failed to update company');

export const setCompanyActive = (id: number, active: boolean) =>
  companyCall(
    'put',
    `${BASE}/${id}/${active ? 'reactivate' : 'deactivate'}`,
    undefined,
    active ? 'Failed to activate company' : 'Failed to deactivate company',
  );

export const changeAssignments = (id: number, body: Assignments) =>
  companyCall('put', `${BASE}/${id}/assignments`, body, 'Failed to update assignment');

export const setPaymentAccount = (id: number, qbPaymentAccountReference: string | null) =>
  companyCall(
    'put',
    `${BASE}/${id}/payment-account`,
    { qbPaymentAccountReference },
    'Failed to update payment account',
  );

export const configureNacha = (id: number, body: NachaPayload) =>
  companyCall('put', `${BASE}/${id}/nacha-config`, body, 'Failed to update NACHA configuration');

export async function deleteCompany(id: number): Promise<{ message?: string }> {
  const res = await api.delete<null>(`${BASE}/${id}`, { fallbackMessage: 'Failed to delete company' });
  return { message: res.message };
}

export async function getTokenStatus(id: number, signal?: AbortSignal): Promise<TokenStatus> {
  const res = await api.get<TokenStatus>(`${BASE}/${id}/qb-token-status`, {
    signal,
    fallbackMessage: 'Failed to check QuickBooks connection',
  });
  if (!res.data) throw new Error('Failed to check QuickBooks connection');
  return res.data;
}

export async function refreshQbToken(id: number): Promise<{ status?: TokenStatus; message?: string }> {
  const res = await api.post<TokenStatus>(`${BASE}/${id}/refresh-qb-token`, undefined, {
    fallbackMessage: 'Failed to refresh QuickBooks token',
  });
  return { status: res.data, message: res.message };
}

export async function getQbCredentials(id: number, signal?: AbortSignal): Promise<CredentialsInfo> {
  const res = await api.get<CredentialsInfo>(`${BASE}/${id}/qb-credentials`, {
    signal,
    fallbackMessage: 'Failed to fetch QuickBooks credentials',
  });
  return res.data ?? { hasCredentials: false };
}

export async function saveQbCredentials(id: number, body: QbCredentialsPayload): Promise<CredentialsInfo> {
  const res = await api.put<CredentialsInfo>(`${BASE}/${id}/qb-credentials`, body, {
    fallbackMessage: 'Failed to save credentials',
  });
  return res.data ?? { hasCredentials: true };
}

/** POST .../qb-oauth/start: the URL the popup opens. */
export async function startQbOAuth(
  id: number,
  body: QbCredentialsPayload & { qbCallbackUrl: string },
): Promise<string> {
  const res = await api.post<{ authUrl: string }>(`${BASE}/${id}/qb-oauth/start`, body, {
    fallbackMessage: 'Failed to start OAuth flow',
  });
  if (!res.data?.authUrl) throw new Error('Failed to start OAuth flow');
  return res.data.authUrl;
}

/** GET /api/quickbooks/{companyId}/company-info: the bank accounts the payment account is chosen from. */
export async function getBankAccounts(companyId: number, signal?: AbortSignal): Promise<BankAccount[]> {
  const res = await api.get<{ QueryResponse?: { Account?: BankAccount[] } }>(
    `/api/quickbooks/${companyId}/company-info`,
    { signal, fallbackMessage: 'Failed to fetch QuickBooks company information' },
  );
  return res.data?.QueryResponse?.Account ?? [];
}

/** The manager picker: managers (spec 1 §2 User Assignments; limit 100). */
export async function getManagerChoices(signal?: AbortSignal): Promise<Manager[]> {
  const res = await api.get<Manager[]>('/api/manager/managers', {
    query: { page: 1, limit: PICKER_LIMIT },
    signal,
    fallbackMessage: 'Failed to fetch managers',
  });
  return res.data ?? [];
}

/** The processor/approver/accountant pickers: users, limit 100 (spec 1 §9). */
export async function getUserChoices(signal?: AbortSignal): Promise<User[]> {
  const res = await api.get<User[] | { data: User[] }>('/api/user/users', {
    query: { page: 1, limit: PICKER_LIMIT },
    signal,
    fallbackMessage: 'Failed to fetch users',
  });
  const body = res.data;
  return Array.isArray(body) ? body : (body?.data ?? []);
}
