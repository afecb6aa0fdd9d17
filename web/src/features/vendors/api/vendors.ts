// The Vendors calls (spec 2 §7). Numbers come masked unless showUnmasked is asked (and allowed).
import { api } from '../../../lib/api-client';
import { downloadFile, uploadForm } from '../../../lib/transfer';
import type {
  CompanyChoice,
  Vendor,
  VendorHistoryEntry,
  VendorImportResult,
  VendorSyncStarted,
} from '../../../types/api';
import {
  type BankingValues,
  EXPORT_FILE_NAME,
  VENDOR_SYNC_LIMIT,
  VENDORS_PAGE_SIZE,
} from '../utils/vendor-rules';

export interface VendorFilters {
  search: string;
  companyId: string;
  /** '' all, 'true' with banking, 'false' without. */
  hasBanking: string;
  active: string;
}

export interface VendorPage {
  data: Vendor[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export async function getVendors(
  filters: VendorFilters,
  page: number,
  signal?: AbortSignal,
): Promise<VendorPage> {
  const res = await api.get<Vendor[]>('/api/vendors', {
    query: {
      search: filters.search.trim() || undefined,
      companyId: filters.companyId || undefined,
      hasBanking: filters.hasBanking || undefined,
      active: filters.active || undefined,
      page,
      limit: VENDORS_PAGE_SIZE,
    },
    signal,
    fallbackMessage: 'Failed to load vendors',
  });
  const p = res.meta?.pagination;
  const total = p?.total ?? res.data?.length ?? 0;
  return {
    data: res.data ?? [],
    total,
    page: p?.page ?? page,
    limit: p?.limit ?? VENDORS_PAGE_SIZE,
    totalPages: p?.totalPages ?? Math.max(1, Math.ceil(total / VENDORS_PAGE_SIZE)),
  };
}

export async function getVendor(
  id: string | number,
  showUnmasked: boolean,
  signal?: AbortSignal,
): Promise<Vendor> {
  const res = await api.get<Vendor>(`/api/vendors/${id}`, {
    query: { showUnmasked: showUnmasked ? 'true' : undefined },
    signal,
    fallbackMessage: 'Vendor not found',
  });
  if (!res.data) throw new Error('Vendor not found');
  return res.data;
}

export async function getVendorHistory(
  id: string | number,
  signal?: AbortSignal,
): Promise<VendorHistoryEntry[]> {
  const res = await api.get<VendorHistoryEntry[]>(`/api/vendors/${id}/history`, { signal });
  return res.data ?? [];
}

export async function updateVendorBanking(id: number, body: BankingValues): Promise<{ message?: string }> {
  const res = await api.put<Vendor>(
    `/api/vendors/${id}/banking`,
    { ...body, bankName: body.bankName.trim() || undefined },
    { fallbackMessage: 'Failed to update banking information' },
  );
  return { message: res.message };
}

export async function clearVendorBanking(id: number): Promise<{ message?: string }> {
  const res = await api.delete<Vendor>(`/api/vendors/${id}/banking`, {
    fallbackMessage: 'Failed to clear banking information',
  });
  return { message: res.message };
}

export async function startVendorSync(companyId: number): Promise<VendorSyncStarted> {
  const res = await api.post<VendorSyncStarted>(
    '/api/vendors/sync',
    { companyId, limit: VENDOR_SYNC_LIMIT, offset: 0 },
    { fallbackMessage: 'An error occurred' },
  );
  if (!res.data) throw new Error('An error occurred');
  return res.data;
}

export async function getVendorSync(syncId: string, signal?: AbortSignal) {
  const res = await api.get<VendorSyncStarted & { error: string | null }>(`/api/vendors/sync/${syncId}`, {
    signal,
  });
  return res.data;
}

export function exportVendors(companyId: string, includeInactive: boolean): Promise<string> {
  const q = new URLSearchParams();
  if (companyId) q.set('companyId', companyId);
  if (includeInactive) q.set('includeInactive', 'true');
  const qs = q.toString();
  return downloadFile(
    `/api/vendors/export-csv${qs ? `?${qs}` : ''}`,
    EXPORT_FILE_NAME,
    'Failed to export vendor data',
  );
}

export async function importVendors(
  file: File,
  onProgress: (percent: number) => void,
): Promise<VendorImportResult> {
  const form = new FormData();
  form.append('file', file, file.name);
  const res = await uploadForm<VendorImportResult>(
    '/api/vendors/import-csv',
    form,
    onProgress,
    'Failed to import CSV file',
  );
  if (!res.data) throw new Error('Failed to import CSV file');
  return res.data;
}

/** The company filter's and the sync's choices (active companies, up to 1000). */
export async function getCompanyChoices(signal?: AbortSignal): Promise<CompanyChoice[]> {
  const res = await api.get<CompanyChoice[]>('/api/company/companies', {
    query: { page: 1, limit: 1000 },
    signal,
    fallbackMessage: 'Failed to fetch companies',
  });
  return res.data ?? [];
}

/** DELETE /api/vendors/{id} (ADMIN): the vendor's data key is deleted and it leaves every list. */
export async function forgetVendor(id: number): Promise<{ message?: string }> {
  const res = await api.delete<null>(`/api/vendors/${id}`, { fallbackMessage: 'Failed to forget vendor' });
  return { message: res.message };
}
