import { api } from '../../../lib/api-client';
import type { User } from '../../../types/api';
import { USERS_PAGE_SIZE } from '../utils/user-rules';

export interface UserPage {
  data: User[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** GET /api/user/users (page, limit 10). */
export async function getUsers(
  page: number,
  limit = USERS_PAGE_SIZE,
  signal?: AbortSignal,
): Promise<UserPage> {
  const res = await api.get<UserPage>('/api/user/users', {
    query: { page, limit },
    signal,
    fallbackMessage: 'Failed to fetch users',
  });
  const body = res.data;
  const p = res.meta?.pagination;
  const total = body?.total ?? p?.total ?? 0;
  return {
    data: body?.data ?? [],
    total,
    page: body?.page ?? p?.page ?? page,
    limit: body?.limit ?? p?.limit ?? limit,
    totalPages: body?.totalPages ?? p?.totalPages ?? Math.max(1, Math.ceil(total / limit)),
  };
}
