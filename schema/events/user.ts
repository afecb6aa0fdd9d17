// User aggregate events: the contract between the decider, the projections and the audit trail.
// Each type carries a schema version; an older stored version is upcast on read (schema/events/index.ts).
import { z } from 'zod';

export const Role = z.enum(['ADMIN', 'MODERATOR', 'USER', 'GUEST']);
export type Role = z.infer<typeof Role>;

export const userEvents = {
  UserRegistered: {
    version: 1,
    schema: z.object({
      userId: z.number().int().positive(),
      email: z.string(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      role: Role,
      isActive: z.boolean(),
      passwordHash: z.string(),
      registeredAt: z.string(),
    }),
  },
  UserProfileUpdated: {
    version: 1,
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
  UserPasswordChanged: {
    version: 1,
    schema: z.object({
      userId: z.number().int().positive(),
      passwordHash: z.string(),
      /** 'self' when the user changed it, 'admin' when an administrator set it. */
      by: z.enum(['self', 'admin']),
      at: z.string(),
    }),
  },
  UserSignedIn: {
    version: 1,
    schema: z.object({ userId: z.number().int().positive(), at: z.string(), ip: z.string().nullable() }),
  },
  UserSignedOut: { version: 1, schema: z.object({ userId: z.number().int().positive(), at: z.string() }) },
  /** Claims an e-mail address (stream `useremail-<lower-cased email>`): uniqueness without a lock. */
  UserEmailClaimed: {
    version: 1,
    schema: z.object({ email: z.string(), userId: z.number().int().positive(), at: z.string() }),
  },
  UserEmailReleased: {
    version: 1,
    schema: z.object({ email: z.string(), userId: z.number().int().positive(), at: z.string() }),
  },
} as const;

type Defs = typeof userEvents;
export type UserEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];
export type UserEventOf<K extends UserEvent['type']> = Extract<UserEvent, { type: K }>;
