// Read model of users: the lists, the detail, sign-in lookups and per-user sign-in statistics.

import type { Transaction } from 'kysely';
import { sql } from 'kysely';
import { type UserEvent, userEvents } from '../../schema/users/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import { rowsInsert } from '../rows-insert.js';
import type { UsersTable, UsersTables } from './tables.js';

const decodeUserEvent = eventDecoder(userEvents);

export type { UsersTable, UsersTables } from './tables.js';

export const usersProjection: Projection<UsersTables> = {
  name: 'users',
  // 2: credential_id instead of the password hash; personal fields erasable.
  version: 2,
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
    'UserForgotten',
  ],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'users')} (
      id integer PRIMARY KEY,
      email text,
      email_lower text,
      first_name text,
      last_name text,
      role text NOT NULL,
      is_active boolean NOT NULL,
      credential_id text NOT NULL,
      deleted_at timestamptz,
      erased_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      total_logins integer NOT NULL DEFAULT 0,
      last_login_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('users_email_lower_idx')} ON ${sql.id(schema, 'users')} (email_lower)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('users_created_idx')} ON ${sql.id(schema, 'users')} (created_at DESC, id DESC)`.execute(
      db,
    );
  },
  apply(trx, stored, ctx) {
    return applyUsers(trx, [stored], ctx);
  },
  applyBatch: (trx, events, ctx) => applyUsers(trx, events, ctx),
};

type UserRow = UsersTable;

/**
 * One user row after one event, the whole projection logic, on a row the caller owns and that is
 * changed in place: a batch copies each row it touches once rather than once per event (a replay
 * folds ten events a user, and the copies were a fifth of its main thread).
 */
function applyUserEvent(row: UserRow | undefined, event: UserEvent, at: Date): UserRow | undefined {
  if (event.type === 'UserRegistered') {
    const d = event.data;
    return {
      id: d.userId,
      // Null when the user was forgotten since (a rebuild reads the event with its fields erased).
      email: d.email ?? null,
      email_lower: d.email?.toLowerCase() ?? null,
      first_name: d.firstName ?? null,
      last_name: d.lastName ?? null,
      role: d.role,
      is_active: d.isActive,
      credential_id: d.credentialId,
      deleted_at: null,
      erased_at: null,
      created_at: new Date(d.registeredAt),
      updated_at: new Date(d.registeredAt),
      total_logins: 0,
      last_login_at: null,
    };
  }
  if (!row) return row;
  switch (event.type) {
    case 'UserProfileUpdated': {
      const d = event.data;
      if (d.email !== undefined) {
        row.email = d.email;
        row.email_lower = d.email?.toLowerCase() ?? null;
      }
      if (d.firstName !== undefined) row.first_name = d.firstName;
      if (d.lastName !== undefined) row.last_name = d.lastName;
      row.updated_at = new Date(d.updatedAt);
      return row;
    }
    case 'UserRoleChanged':
      row.role = event.data.to;
      row.updated_at = at;
      return row;
    case 'UserDeactivated':
      row.is_active = false;
      row.updated_at = at;
      return row;
    case 'UserReactivated':
      row.is_active = true;
      row.updated_at = at;
      return row;
    case 'UserDeleted':
      row.deleted_at = at;
      row.is_active = false;
      row.updated_at = at;
      return row;
    case 'UserPasswordChanged':
      row.credential_id = event.data.credentialId;
      row.updated_at = at;
      return row;
    case 'UserForgotten':
      row.email = null;
      row.email_lower = null;
      row.first_name = null;
      row.last_name = null;
      row.erased_at = new Date(event.data.at);
      row.updated_at = at;
      return row;
    case 'UserSignedIn':
      row.total_logins += 1;
      row.last_login_at = new Date(event.data.at);
      return row;
    default:
      return row;
  }
}

/** The upsert of a batch's changed rows: one JSON parameter, the same text for any number (rows-insert.ts). */
const upsertUsers = rowsInsert<UserRow>({
  table: 'users',
  columns: [
    ['id', 'integer'],
    ['email', 'text'],
    ['email_lower', 'text'],
    ['first_name', 'text'],
    ['last_name', 'text'],
    ['role', 'text'],
    ['is_active', 'boolean'],
    ['credential_id', 'text'],
    ['deleted_at', 'timestamptz'],
    ['erased_at', 'timestamptz'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
    ['total_logins', 'integer'],
    ['last_login_at', 'timestamptz'],
  ],
  upsertOn: 'id',
});

/**
 * Reads the touched rows once (not at all in a rebuild, which remembers what it wrote), folds the
 * batch in memory, writes the changed rows in one upsert whose text is the same however many rows
 * it writes (rows-insert.ts).
 */
async function applyUsers(trx: Transaction<UsersTables>, events: StoredEvent[], ctx: ProjectionContext) {
  const decoded = events
    .filter((e) => usersProjection.handles.includes(e.type))
    .map((stored) => ({ stored, event: decodeUserEvent(stored) }));
  if (decoded.length === 0) return;
  const memory = ctx.memory;
  const rows = new Map<number, UserRow | undefined>();
  const unknown: number[] = [];
  for (const id of new Set(decoded.map((d) => d.event.data.userId))) {
    const known = memory?.rows.get(id);
    if (known) rows.set(id, known);
    else if (!memory?.complete) unknown.push(id);
  }
  if (unknown.length > 0) {
    const existing = (await trx
      .withSchema(ctx.schema)
      .selectFrom('users')
      .selectAll()
      .where('id', 'in', unknown)
      .execute()) as UserRow[];
    for (const r of existing) rows.set(r.id, r);
  }
  // Rows this batch has copied (from memory or the table) and may change in place: what memory
  // holds stays as it was until the batch's upsert has committed.
  const dirty = new Set<number>();
  for (const { stored, event } of decoded) {
    const id = event.data.userId;
    const before = rows.get(id);
    const next = applyUserEvent(dirty.has(id) || !before ? before : { ...before }, event, stored.createdAt);
    if (next === undefined) continue;
    rows.set(id, next);
    dirty.add(id);
    ctx.notify({ topic: 'user', id: String(id), data: { type: event.type } });
  }
  if (dirty.size === 0) return;
  const values = [...dirty].map((id) => rows.get(id)!);
  await trx.executeQuery(upsertUsers(ctx.schema, values));
  if (memory) for (const v of values) memory.rows.set(v.id, v);
}
