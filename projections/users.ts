// Read model of users: the lists, the detail, sign-in lookups and per-user sign-in statistics.
import { sql } from 'kysely';
import { decodeEvent } from '../schema/events/index.js';
import type { UserEvent } from '../schema/events/user.js';
import type { Projection } from './projection.js';

export interface UsersTable {
  id: number;
  email: string;
  email_lower: string;
  first_name: string | null;
  last_name: string | null;
  role: 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';
  is_active: boolean;
  password_hash: string;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  total_logins: number;
  last_login_at: Date | null;
}

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  tables: ['users'],
  handles: [
    'UserRegistered',
    'UserProfileUpdated',
    'UserRoleChanged',
    'UserDeactivated',
    'UserReactivated',
    'UserDeleted',
    'UserPasswordChanged',
    'UserSignedIn',
  ],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'users')} (
      id integer PRIMARY KEY,
      email text NOT NULL,
      email_lower text NOT NULL,
      first_name text,
      last_name text,
      role text NOT NULL,
      is_active boolean NOT NULL,
      password_hash text NOT NULL,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      total_logins integer NOT NULL DEFAULT 0,
      last_login_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`users_email_lower_${schema}`)} ON ${sql.id(schema, 'users')} (email_lower)`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`users_created_${schema}`)} ON ${sql.id(schema, 'users')} (created_at DESC, id DESC)`.execute(db);
  },
  async apply(trx, stored, ctx) {
    const event = decodeEvent(stored) as UserEvent;
    const users = trx.withSchema(ctx.schema);
    const at = stored.createdAt;
    switch (event.type) {
      case 'UserRegistered': {
        const d = event.data;
        await users
          .insertInto('users')
          .values({
            id: d.userId,
            email: d.email,
            email_lower: d.email.toLowerCase(),
            first_name: d.firstName,
            last_name: d.lastName,
            role: d.role,
            is_active: d.isActive,
            password_hash: d.passwordHash,
            created_at: new Date(d.registeredAt),
            updated_at: new Date(d.registeredAt),
          })
          .execute();
        break;
      }
      case 'UserProfileUpdated': {
        const d = event.data;
        await users
          .updateTable('users')
          .set({
            ...(d.email !== undefined ? { email: d.email, email_lower: d.email.toLowerCase() } : {}),
            ...(d.firstName !== undefined ? { first_name: d.firstName } : {}),
            ...(d.lastName !== undefined ? { last_name: d.lastName } : {}),
            updated_at: new Date(d.updatedAt),
          })
          .where('id', '=', d.userId)
          .execute();
        break;
      }
      case 'UserRoleChanged':
        await users.updateTable('users').set({ role: event.data.to, updated_at: at }).where('id', '=', event.data.userId).execute();
        break;
      case 'UserDeactivated':
        await users.updateTable('users').set({ is_active: false, updated_at: at }).where('id', '=', event.data.userId).execute();
        break;
      case 'UserReactivated':
        await users.updateTable('users').set({ is_active: true, updated_at: at }).where('id', '=', event.data.userId).execute();
        break;
      case 'UserDeleted':
        await users
          .updateTable('users')
          .set({ deleted_at: at, is_active: false, updated_at: at })
          .where('id', '=', event.data.userId)
          .execute();
        break;
      case 'UserPasswordChanged':
        await users
          .updateTable('users')
          .set({ password_hash: event.data.passwordHash, updated_at: at })
          .where('id', '=', event.data.userId)
          .execute();
        break;
      case 'UserSignedIn':
        await users
          .updateTable('users')
          .set((eb) => ({ total_logins: eb('total_logins', '+', 1), last_login_at: new Date(event.data.at) }))
          .where('id', '=', event.data.userId)
          .execute();
        break;
      default:
        return;
    }
    ctx.notify({ topic: 'user', id: String(event.data.userId), data: { type: event.type } });
  },
};
