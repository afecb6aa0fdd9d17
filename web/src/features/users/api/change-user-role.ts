import { api } from '../../../lib/api-client';
import type { Role, User } from '../../../types/api';

/** PUT /api/user/users/{id}/role. */
export async function changeUserRole(id: number | string, role: Role) {
  const res = await api.put<User>(
    `/api/user/users/${id}/role`,
    { role },
    { fallbackMessage: 'Failed to update role' },
  );
  return { user: res.data as User, message: res.message };
}
