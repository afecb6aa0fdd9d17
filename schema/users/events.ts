// User aggregate events: the contract between the decider, the projections and the audit trail.
// Each type carries a schema version; an older stored version is upcast on read (schema/shared/events.ts).
import { z } from 'zod';
import type { PersonalFields } from '../shared/personal.js';

export const Role = z.enum(['ADMIN', 'MODERATOR', 'USER', 'GUEST']);
export type Role = z.infer<typeof Role>;

/** A user's data key subject. */
export const userSubject = (userId: number) => `user-${userId}`;

/** Personal fields of a user event: sealed with the user's key (services/privacy/personal-data.ts). */
function userPersonal(fields: readonly string[]): PersonalFields {
  return { subject: (data) => userSubject(data.userId as number), fields };
}

export const userEvents = {
  /**
   * v2: no password hash (credentials live in `user_credentials`; the event names the credential).
   * v1 events held the hash: `npm run migrate` copies an old log into a new one without it.
   */
  UserRegistered: {
    version: 2,
    personal: userPersonal(['email', 'firstName', 'lastName']),
    schema: z.object({
      userId: z.number().int().positive(),
      email: z.string(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      role: Role,
      isActive: z.boolean(),
      credentialId: z.string(),
      registeredAt: z.string(),
    }),
  },
  UserProfileUpdated: {
    version: 1,
    personal: userPersonal(['email', 'firstName', 'lastName']),
    schema: z.object({
      userId: z.number().int().positive(),
      email: z.string().optional(),
      firstName: z.string().nullable().optional(),
      lastName: z.string().nullable().optional(),
      updatedAt: z.string(),
    }),
  },
  UserRoleChanged: {
    version: 1,
    schema: z.object({ userId: z.number().int().positive(), from: Role, to: Role, changedAt: z.string() }),
  },
  UserDeactivated: { version: 1, schema: z.object({ userId: z.number().int().positive(), at: z.string() }) },
  UserReactivated: { version: 1, schema: z.object({ userId: z.number().int().positive(), at: z.string() }) },
  UserDeleted: { version: 1, schema: z.object({ userId: z.number().int().positive(), at: z.string() }) },
  /** v2: names the new credential instead of carrying its hash (see UserRegistered). */
  UserPasswordChanged: {
    version: 2,
    schema: z.object({
      userId: z.number().int().positive(),
      credentialId: z.string(),
      /** 'self' when the user changed it, 'admin' when an administrator set it. */
      by: z.enum(['self', 'admin']),
      at: z.string(),
    }),
  },
  /**
   * The user's personal data is erased for good: their data key is deleted, so the personal fields
   * of every event about them stay unreadable, and the read models drop them (GDPR art. 17).
   */
  UserForgotten: {
    version: 1,
    schema: z.object({ userId: z.number().int().positive(), subject: z.string(), at: z.string() }),
  },
  /** On `usersessions-<userId>` (older ones on `user-<userId>`): projections key them by `userId`. */
  UserSignedIn: {
    version: 1,
    personal: userPersonal(['ip']),
    schema: z.object({ userId: z.number().int().positive(), at: z.string(), ip: z.string().nullable() }),
  },
  UserSignedOut: { version: 1, schema: z.object({ userId: z.number().int().positive(), at: z.string() }) },
  /** Claims an e-mail address (stream `useremail-<blind index of the address>`): uniqueness without a lock. */
  UserEmailClaimed: {
    version: 1,
    personal: userPersonal(['email']),
    schema: z.object({ email: z.string(), userId: z.number().int().positive(), at: z.string() }),
  },
  UserEmailReleased: {
    version: 1,
    personal: userPersonal(['email']),
    schema: z.object({ email: z.string(), userId: z.number().int().positive(), at: z.string() }),
  },
  /**
   * The admin roster (stream `adminroster`) keeps 'never zero active admins' without a lock: it
   * learns who is an active ADMIN from the users' own streams (as of `userVersion`, the user stream
   * version it judged) and approves each removal of one before the user command runs.
   */
  AdminRosterAdmitted: {
    version: 1,
    schema: z.object({ userId: z.number().int().positive(), userVersion: z.number().int(), at: z.string() }),
  },
  AdminRosterDropped: {
    version: 1,
    schema: z.object({ userId: z.number().int().positive(), userVersion: z.number().int(), at: z.string() }),
  },
  /** The roster let this admin go; the user command (id `userCommandId`) must land at `userVersion`. */
  AdminRemovalApproved: {
    version: 1,
    schema: z.object({
      userId: z.number().int().positive(),
      userVersion: z.number().int(),
      change: z.enum(['demote', 'deactivate', 'delete']),
      role: Role.optional(),
      actorId: z.number().int().nullable(),
      userCommandId: z.string(),
      at: z.string(),
    }),
  },
} as const;

type Defs = typeof userEvents;
export type UserEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];
export type UserEventOf<K extends UserEvent['type']> = Extract<UserEvent, { type: K }>;
