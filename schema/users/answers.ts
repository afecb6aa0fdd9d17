// What the users module answers (REST, OpenAPI and GraphQL alike): the application's answer types
// are z.infer of these (services/app/user-view.ts, users.ts, auth.ts).
import { z } from 'zod';
import { named, pageOf } from '../shared/answers.js';
import { Role } from './events.js';

/** The user as the API shows it: never the password hash, dates as ISO strings. */
export const User = named(
  'User',
  z.object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: Role,
    isActive: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);
export type User = z.infer<typeof User>;

export const UserPage = pageOf(User);

/** A sign-in's or a refresh's tokens. */
export const Tokens = named('Tokens', z.object({ accessToken: z.string(), refreshToken: z.string() }));
export type Tokens = z.infer<typeof Tokens>;

export const AuthAnswer = z.object({ user: User, tokens: Tokens });
export const RefreshAnswer = z.object({ tokens: Tokens });

export const UserStatistics = z.object({
  totalLogins: z.number().int(),
  lastLogin: z.iso.datetime().nullable(),
  /** Companies the user is assigned to as processor, approver or accountant. */
  companiesManaged: z.number().int(),
  /** Approvals they created (not deleted). */
  approvalsCreated: z.number().int(),
});
export type UserStatistics = z.infer<typeof UserStatistics>;

export const UsersByRole = z.object({
  ADMIN: z.number().int(),
  MODERATOR: z.number().int(),
  USER: z.number().int(),
  GUEST: z.number().int(),
});
export type UsersByRole = z.infer<typeof UsersByRole>;

export const OverviewStats = z.object({
  totalUsers: z.number().int(),
  activeUsers: z.number().int(),
  newUsersThisMonth: z.number().int(),
  usersByRole: UsersByRole,
});
export type OverviewStats = z.infer<typeof OverviewStats>;
