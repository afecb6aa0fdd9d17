import { api } from '../../../lib/api-client';

/** DELETE /api/user/users/{id}. */
export async function deleteUser(id: number | string) {
  const res = await api.delete<null>(`/api/user/users/${id}`, { fallbackMessage: 'Failed to delete user' });
  return { message: res.message };
}
