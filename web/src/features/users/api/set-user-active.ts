import { api } from '../../../lib/api-client';
import type { User } from '../../../types/api';

/** PUT /api/user/users/{id}/reactivate or /deactivate. */
export async function setUserActive(id: number | string, active: boolean) {
  const res = await api.put<User>(
    `/api/user/users/${id}/${active ? 'reactivate' : 'deactivate'}`,
    undefined,
    {
      fallbackMessage: active ? 'Failed to activate user' : 'Failed to deactivate user',
    },
  );
  return { user: res.data as User, message: res.message };
}
