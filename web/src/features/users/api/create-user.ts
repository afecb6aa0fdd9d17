import { api } from '../../../lib/api-client';
import type { Role, User } from '../../../types/api';

export interface CreateUserInput {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  role: Role;
  isActive: boolean;
}

/** POST /api/auth/register (also used to create users). */
export async function createUser(input: CreateUserInput): Promise<{ user: User; message?: string }> {
  const res = await api.post<User>('/api/auth/register', input, { fallbackMessage: 'Registration failed' });
  if (!res.data) throw new Error('Registration failed');
  return { user: res.data, message: res.message };
}
