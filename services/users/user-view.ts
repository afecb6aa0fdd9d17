// The user as the API shows it (spec 1 §3): never the password hash, dates as ISO strings.
import { type Selectable, sql } from 'kysely';
import type { UsersTable } from '../../projections/users/users.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError } from '../shared/errors.js';
import type { UserState } from './decider.js';

export interface UserDto {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: UsersTable['role'];
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export function toUserDto(row: Selectable<UsersTable>): UserDto {
  return {
    id: row.id,
    // Null only once erased, and an erased user is deleted: no live read shows one.
    email: row.email ?? '',
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    isActive: row.is_active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The user as a command left it, for when the read model has not caught up within the bounded wait:
 * the decided state over whatever row there is (the creation time comes from the row or the event).
 */
export function userDtoFromState(state: UserState, row?: Selectable<UsersTable>): UserDto {
  const now = new Date().toISOString();
  return {
    id: state.userId!,
    email: state.email!,
    firstName: state.firstName,
    lastName: state.lastName,
    role: state.role!,
    isActive: state.isActive,
    createdAt: row ? row.created_at.toISOString() : (state.registeredAt ?? now),
    updatedAt: row ? now : (state.registeredAt ?? now),
  };
}

/**
 * The answer to a mutation of one user: the read model's row once it caught up (`caughtUp`), else
 * the decided state. Never an error for a user the command found live: its events are stored.
 */
export async function userAnswer(
  app: AppServices,
  userId: number,
  state: UserState | null,
  caughtUp: boolean,
  position: Position | null,
): Promise<UserDto> {
  // Caught up: a row the gateway read for the live push of this batch (or a later one) will do.
  const fresh =
    caughtUp && position
      ? app.freshReads.take<Selectable<UsersTable> | undefined>(freshUserKey(userId), position)
      : null;
  const row = await (fresh ?? findUserRow(app, userId));
  if (row && (caughtUp || !state)) return toUserDto(row);
  if (state?.exists && !state.deleted) return userDtoFromState(state, row);
  if (row) return toUserDto(row);
  throw new AppError('NOT_FOUND', 'User not found');
}

/** The key of a user's row among the fresh reads (services/app/fresh-reads.ts). */
export function freshUserKey(userId: number) {
  return `user:${userId}`;
}

/** A live (not deleted) user row by id. */
export function findUserRow(app: AppServices, id: number) {
  return app.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Several rows in one query, by id (the deleted ones left out). */
export async function findUserRows(app: AppServices, ids: readonly number[]) {
  const rows = await app.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', sql<number>`ANY(${[...ids]}::int[])`)
    .where('deleted_at', 'is', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export function findUserRowByEmail(app: AppServices, email: string) {
  return app.db
    .selectFrom('users')
    .selectAll()
    .where('email_lower', '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** What a caller's access is decided on. */
export interface ActorRow {
  id: number;
  role: UsersTable['role'];
  email: string | null;
  is_active: boolean;
  deleted_at: Date | null;
}

export function findActorRow(app: AppServices, id: number): Promise<ActorRow | undefined> {
  return app.db
    .selectFrom('users')
    .select(['id', 'role', 'email', 'is_active', 'deleted_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The caller behind a bearer token: only an existing, active, not deleted user in a session that is
 * still on counts, with the role the read model has now. `rows` and `sessions` may answer from
 * memory (the gateway's ActorRows and SessionChecks).
 */
export async function resolveActor(
  app: AppServices,
  bearer: string | null | undefined,
  rows: (id: number) => Promise<ActorRow | undefined> = (id) => findActorRow(app, id),
  sessions: (sessionId: string, userId: number) => Promise<boolean> = (sid, id) =>
    app.refreshTokens.isLive(sid, id),
): Promise<Actor | null> {
  if (!bearer) return null;
  const claims = await app.accessTokens.verify(bearer);
  if (!claims) return null;
  const [row, live] = await Promise.all([rows(claims.userId), sessions(claims.sessionId, claims.userId)]);
  if (!row?.is_active || row.deleted_at || !live) return null;
  return { id: row.id, role: row.role, email: row.email ?? '', sessionId: claims.sessionId };
}
