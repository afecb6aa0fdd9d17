// The user as the API shows it: never the password hash, dates as ISO strings.
import { type Selectable, sql } from 'kysely';
import type { UsersTable } from '../../projections/users/users.js';
import type { User } from '../../schema/users/answers.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';

/** The user answer (schema/users/answers.ts). */
export type UserDto = User;

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
 * The answer to a write of one user: its row once the users read model has applied `position`
 * (services/app/answer-after-write.ts). A row the gateway read for the live push of this batch (or a
 * later one) will do: no second read.
 */
export async function userAnswer(
  app: AppServices,
  userId: number,
  position: Position | null,
): Promise<UserDto> {
  const row = await answerAfterWrite(
    app,
    position,
    ['users'],
    () =>
      (position
        ? app.freshReads.take<Selectable<UsersTable> | undefined>(freshUserKey(userId), position)
        : null) ?? findUserRow(app, userId),
  );
  return toUserDto(row);
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
