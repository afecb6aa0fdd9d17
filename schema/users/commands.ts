// Inputs of the user and auth commands as the API receives them (REST body or GraphQL args).
// The same schemas validate both transports, so a rule lives in one place.
import { z } from 'zod';
import { newPassword, plainText, secretText } from '../shared/text-rules.js';
import { Role } from './events.js';

// 254: the longest address SMTP carries (RFC 5321).
const email = z
  .string()
  .max(254, 'Please enter a valid email address')
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Please enter a valid email address' }));
const name = plainText(100)
  .nullish()
  .transform((v) => (v ? v : null));
const token = z.string().min(1, 'No refresh token available').max(200, 'Invalid refresh token');

export const LoginInput = z.object({
  email,
  password: secretText(1, 'Password is required'),
});

export const RefreshInput = z.object({ refreshToken: token });
export const LogoutInput = z.object({ refreshToken: token.optional() });

export const RegisterUserInput = z.object({
  email,
  password: newPassword(8, 'Password must be at least 8 characters'),
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
  /** Needed when the change is to one's own e-mail address. */
  currentPassword: secretText(1, 'Current password is required').optional(),
});

export const ChangeRoleInput = z.object({ role: Role });

/** Own password: the current one must be given; the new one follows the create rule (8+). */
export const ChangeOwnPasswordInput = z.object({
  currentPassword: secretText(1, 'Current password is required'),
  newPassword: newPassword(8, 'Password must be at least 8 characters'),
});

/** An administrator setting someone's password: 6+ as the spec's dialog says. */
export const AdminChangePasswordInput = z.object({
  newPassword: newPassword(6, 'Password must be at least 6 characters long'),
});

export const PageInput = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(10),
});
