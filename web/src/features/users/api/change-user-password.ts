import { api } from '../../../lib/api-client';

/** PUT /api/user/users/{id}/change-password. */
export async function changeUserPassword(id: number | string, newPassword: string) {
  const res = await api.put<null>(
    `/api/user/users/${id}/change-password`,
    { newPassword },
    { fallbackMessage: 'Failed to change password' },
  );
  return { message: res.message };
}
