// Manager aggregate events: contact records, and their links to user accounts.
// A manager's own stream holds its contact details; the one `managerlinks` stream holds every link,
// so "a user links to at most one manager" is decided on one stream, atomically.
import { z } from 'zod';
import type { PersonalFields } from '../shared/personal.js';

export const ManagerStatus = z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']);
export type ManagerStatus = z.infer<typeof ManagerStatus>;

/** A manager's data key subject. */
export const managerSubject = (managerId: number) => `manager-${managerId}`;

/** Name, e-mail and phone are personal: sealed with the manager's key. The title is not. */
const managerPersonal: PersonalFields = {
  subject: (data) => managerSubject(data.managerId as number),
  fields: ['firstName', 'lastName', 'email', 'phone'],
};

const managerId = z.number().int().positive();

export const managerEvents = {
  ManagerCreated: {
    version: 1,
    personal: managerPersonal,
    schema: z.object({
      managerId,
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      phone: z.string().nullable(),
      title: z.string().nullable(),
      status: ManagerStatus,
      createdAt: z.string(),
    }),
  },
  /** Only the fields that changed are present. */
  ManagerUpdated: {
    version: 1,
    personal: managerPersonal,
    schema: z.object({
      managerId,
      firstName: z.string().optional(),
      lastName: z.string().optional(),
      email: z.string().optional(),
      phone: z.string().nullable().optional(),
      title: z.string().nullable().optional(),
      updatedAt: z.string(),
    }),
  },
  ManagerDeleted: { version: 1, schema: z.object({ managerId, at: z.string() }) },
  /** In the `managerlinks` stream. */
  ManagerUserLinked: {
    version: 1,
    schema: z.object({ managerId, userId: z.number().int().positive(), at: z.string() }),
  },
  /** In the `managerlinks` stream. */
  ManagerUserUnlinked: {
    version: 1,
    schema: z.object({ managerId, userId: z.number().int().positive(), at: z.string() }),
  },
} as const;

type Defs = typeof managerEvents;
export type ManagerEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];
