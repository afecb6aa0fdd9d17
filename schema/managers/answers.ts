// What the managers module answers (REST, OpenAPI and GraphQL alike): the application's answer types
// are z.infer of these (services/app/managers.ts).
import { z } from 'zod';
import { named, pageOf } from '../shared/answers.js';
import { Role } from '../users/events.js';

export const ManagerStatus = z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']);

/** The user account a manager is linked to (a deleted user shows as not linked). */
export const ManagerUser = z.object({
  id: z.number().int(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string(),
  role: Role,
});

/** A contact record an ADMIN keeps, with its linked user. */
export const Manager = named(
  'Manager',
  z.object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    status: ManagerStatus,
    isActive: z.boolean(),
    userId: z.number().int().nullable(),
    user: ManagerUser.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);
export type Manager = z.infer<typeof Manager>;

export const ManagerPage = pageOf(Manager);
