// The Managers calls (spec 2 §7): every one sends the bearer token and answers in the envelope.
import { api } from '../../../lib/api-client';
import type { Manager, User } from '../../../types/api';
import { MANAGERS_PAGE_SIZE, USER_PICKER_LIMIT } from '../utils/manager-rules';

export interface ManagerPage {
  data: Manager[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** The body the form sends: empty phone/title and 'none' user are absent (spec 2 §5). */
export interface ManagerPayload {
  firstName: string;
  lastName: string;
  email: string;
  phone?: string;
  title?: string;
  userId?: number;
}

/** GET /api/manager/managers (page; 10 per page, fixed). */
export async function getManagers(page: number, signal?: AbortSignal): Promise<ManagerPage> {
  const res = await api.get<Manager[]>('/api/manager/managers', {
    query: { page, limit: MANAGERS_PAGE_SIZE },
    signal,
    fallbackMessage: 'Failed to fetch managers',
  });
  const p = res.meta?.pagination;
  const total = p?.total ?? res.data?.length ?? 0;
  return {
    data: res.data ?? [],
    total,
    page: p?.page ?? page,
    limit: p?.limit ?? MANAGERS_PAGE_SIZE,
    totalPages: p?.totalPages ?? Math.max(1, Math.ceil(total / MANAGERS_PAGE_SIZE)),
  };
}

/** GET /api/manager/managers/{id}. */
export async function getManager(id: string | number, signal?: AbortSignal): Promise<Manager> {
  const res = await api.get<Manager>(`/api/manager/managers/${id}`, {
    signal,
    fallbackMessage: 'Manager not found',
  });
  if (!res.data) throw new Error('Manager not found');
  return res.data;
}

export async function createManager(body: ManagerPayload): Promise<{ manager: Manager; message?: string }> {
  const res = await api.post<Manager>('/api/manager/managers', body, {
    fallbackMessage: 'Failed to create manager',
  });
  if (!res.data) throw new Error('Failed to create manager');
  return { manager: res.data, message: res.message };
}

export async function updateManager(
  id: number,
  body: ManagerPayload,
): Promise<{ manager: Manager; message?: string }> {
  const res = await api.put<Manager>(`/api/manager/managers/${id}`, body, {
    fallbackMessage: 'Failed to update manager',
  });
  if (!res.data) throw new Error('Failed to update manager');
  return { manager: res.data, message: res.message };
}

export async function deleteManager(id: number): Promise<{ message?: string }> {
  const res = await api.delete<null>(`/api/manager/managers/${id}`, {
    fallbackMessage: 'Failed to delete manager',
  });
  return { message: res.message };
}

export async function unlinkManagerUser(id: number): Promise<{ manager?: Manager; message?: string }> {
  const res = await api.put<Manager>(`/api/manager/managers/${id}/unlink-user`, undefined, {
    fallbackMessage: 'Failed to unlink user',
  });
  return { manager: res.data, message: res.message };
}

/** The user picker's choices: the users list, limit 100 (spec 2 §7). */
export async function getUserChoices(signal?: AbortSignal): Promise<User[]> {
  const res = await api.get<User[] | { data: User[] }>('/api/user/users', {
    query: { page: 1, limit: USER_PICKER_LIMIT },
    signal,
    fallbackMessage: 'Failed to fetch users',
  });
  const body = res.data;
  return Array.isArray(body) ? body : (body?.data ?? []);
}
