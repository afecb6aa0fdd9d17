// Inputs of the user and auth commands as the API receives them (REST body or GraphQL args).
// The same schemas validate both transports, so a rule lives in one place.
import { z } from 'zod';
import { Role } from '../events/user.js';

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Please enter a valid email address' }));
const name = z
  .string()
  .trim()
  .max(100, 'Must be at most 100 characters')
  .nullish()
  .transform((v) => (v ? v : null));

export const LoginInput = z.object({
  email,
  password: z.string().min(1, 'Password is required').max(200),
});

export const RefreshInput = z.object({ refreshToken: z.string().min(1, 'No refresh token available') });
export const LogoutInput = z.object({ refreshToken: z.string().optional() });

export const RegisterUserInput = z.object({
  email,
  password: z.string().min(8, 'Password must be at least 8 characters').max(200),
  firstName: name,
  lastName: name,
  role: Role.default('USER'),
  isActive: z.boolean().default(true),
});

export const UpdateUserInput = z.object({
  email: email.optional(),
  firstName: name.optional(),
  lastName: name.optional(),
  role: Role.optional(),
  isActive: z.boolean().optional(),
});

export const ChangeRoleInput = z.object({ role: Role });

/** Own password: the current one must be given; the new one follows the create rule (8+). */
export const ChangeOwnPasswordInput = z.object({
  currentPassword: z.string().min(1, 'Current password is required'),
  newPassword: z.string().min(8, 'Password must be at least 8 characters').max(200),
});

/** An administrator setting someone's password: 6+ as the spec's dialog says. */
export const AdminChangePasswordInput = z.object({
  newPassword: z.string().min(6, 'Password must be at least 6 characters long').max(200),
});

export const PageInput = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(10),
});
