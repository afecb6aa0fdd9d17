import { api } from '../../../lib/api-client';
import type { User } from '../../../types/api';

/** GET /api/user/users/{id}. */
export async function getUser(id: string, signal?: AbortSignal): Promise<User> {
  const res = await api.get<User>(`/api/user/users/${encodeURIComponent(id)}`, {
    signal,
    fallbackMessage: 'Failed to fetch user',
  });
  if (!res.data) throw new Error('User not found');
  return res.data;
}
