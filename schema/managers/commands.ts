// Inputs of the manager commands, REST body and GraphQL args alike.
import { z } from 'zod';
import { MAX_ROW_ID } from '../shared/ids.js';
import { plainText } from '../shared/text-rules.js';

// 254: the longest address SMTP carries (RFC 5321).
const email = z
  .string({ error: 'Please enter a valid email address' })
  .max(254, 'Please enter a valid email address')
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Please enter a valid email address' }));

const required = (max: number, message: string) => plainText(max, message).pipe(z.string().min(1, message));

/** Optional text: the form sends an empty field as absent; an empty string counts as absent too. */
const optionalText = (max: number) =>
  plainText(max)
    .nullish()
    .transform((v) => (v ? v : null));

/** A user id as JSON (a number) or as a form/query value (digits). */
const userId = z
  .union([z.number(), z.string().max(12).regex(/^\d+$/, 'Invalid user id').transform(Number)])
  .pipe(z.number().int('Invalid user id').positive('Invalid user id').max(MAX_ROW_ID, 'Invalid user id'));

export const ManagerInput = z.object({
  firstName: required(100, 'First name is required'),
  lastName: required(100, 'Last name is required'),
  email,
  phone: optionalText(40),
  title: optionalText(100),
  /** Absent or null: not linked. */
  userId: userId.nullish().transform((v) => v ?? null),
});
export type ManagerInput = z.infer<typeof ManagerInput>;

export const LinkUserInput = z.object({ userId });

export const ManagerPageInput = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

export const ManagerSearchInput = z.object({
  q: plainText(100, 'Search text is required'),
});
