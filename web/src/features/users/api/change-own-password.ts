import { api } from '../../../lib/api-client';

/** PUT /api/user/password: one's own password, with the current one. */
export async function changeOwnPassword(currentPassword: string, newPassword: string) {
  const res = await api.put<null>(
    '/api/user/password',
    { currentPassword, newPassword },
    { fallbackMessage: 'Failed to change password' },
  );
  return { message: res.message };
}
