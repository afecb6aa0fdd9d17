import { api } from '../../../lib/api-client';
import type { Role, User } from '../../../types/api';

export interface UpdateUserInput {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  role?: Role;
  isActive?: boolean;
  /** Needed when one changes one's own address. */
  currentPassword?: string;
}

/** PUT /api/user/users/{id}. */
export async function updateUser(id: number | string, input: UpdateUserInput) {
  const res = await api.put<User>(`/api/user/users/${id}`, input, {
    fallbackMessage: 'Failed to update user',
  });
  return { user: res.data as User, message: res.message };
}
