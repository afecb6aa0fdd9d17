// The last-admin guard without a lock held across a wait. Removing an active ADMIN (demote,
// deactivate, delete) is first approved by the admin roster (services/users/admin-roster-decider.ts:
// one stream, optimistic concurrency, refuses to let the last one go), then the user command lands
// at exactly the user stream version that was judged. A crash in between is finished by the users
// process manager (workers/users/reactions.ts), which runs the same command with the same id.
import { randomUUID } from 'node:crypto';
import type { Role } from '../../schema/users/events.js';
import { type CommandContext, eventIdFor } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, commandContext } from '../auth/permissions.js';
import { DomainError } from '../shared/domain-errors.js';
import {
  ADMIN_ROSTER_STREAM,
  type AdminRemoval,
  adminRosterDecider,
  ROSTER_BEHIND,
} from './admin-roster-decider.js';
import { CHANGED_CONCURRENTLY, type UserCommand, type UserState, userDecider } from './user-decider.js';

export type GuardedChange =
  | { type: 'ChangeUserRole'; role: Role }
  | { type: 'DeactivateUser' }
  | { type: 'DeleteUser' };

const isActiveAdmin = (s: UserState) => s.exists && !s.deleted && s.isActive && s.role === 'ADMIN';

/** Tells the roster what the user's own stream shows now; stale news is ignored by the roster. */
export async function observeAdmin(app: AppServices, userId: number, context: CommandContext = {}) {
  const { state, version } = await app.commands.load(userDecider, userDecider.streamId(userId));
  await app.commands.handle(
    adminRosterDecider,
    ADMIN_ROSTER_STREAM,
    {
      type: 'ObserveAdmin',
      userId,
      userVersion: version,
      activeAdmin: isActiveAdmin(state),
      now: new Date().toISOString(),
    },
    // Not the request's idempotent ids: an observation is idempotent by itself (stale news is ignored).
    {
      userId: context.userId ?? null,
      correlationId: context.correlationId ?? context.request?.correlationId,
    },
  );
}

/** A roster that has never been written (a log from before it existed) learns today's admins first. */
async function seedRosterIfNew(app: AppServices) {
  const { version } = await app.commands.load(adminRosterDecider, ADMIN_ROSTER_STREAM);
  if (version > 0) return;
  const admins = await app.db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'ADMIN')
    .where('deleted_at', 'is', null)
    .execute();
  for (const { id } of admins) await observeAdmin(app, id);
}

function removalOf(
  state: UserState,
  change: GuardedChange,
  actorId: number,
  userId: number,
): AdminRemoval | null {
  // Acting on oneself is refused by the decider (403) before any count matters.
  if (!isActiveAdmin(state) || actorId === userId) return null;
  if (change.type === 'ChangeUserRole') return change.role === 'ADMIN' ? null : 'demote';
  return change.type === 'DeactivateUser' ? 'deactivate' : 'delete';
}

export function userCommandOf(
  change: GuardedChange,
  actorId: number | null,
  now: string,
  atVersion: number,
): UserCommand {
  return { ...change, actorId, now, atVersion };
}

/**
 * Runs a role, deactivate or delete command on a user. Every such command lands only at the user
 * stream version it was judged on (a user promoted meanwhile is judged again), and one that removes
 * an active ADMIN runs only after the roster approved it. A stream that moved in between is judged
 * again (a few times), then answered 409.
 */
export async function runGuarded(app: AppServices, actor: Actor, userId: number, change: GuardedChange) {
  const now = new Date().toISOString();
  const context = commandContext(actor);
  const key = context.request?.idempotencyKey;
  // One id for the user command across attempts, and across retries of the request (same key).
  const commandId = key
    ? eventIdFor(`idempotency:${actor.id}:${key}:guarded:${userId}:${change.type}`, 0)
    : randomUUID();
  for (let attempt = 1; ; attempt++) {
    const { state, version } = await app.commands.load(userDecider, userDecider.streamId(userId));
    const removal = removalOf(state, change, actor.id, userId);
    if (removal) {
      await seedRosterIfNew(app);
      try {
        await app.commands.handle(
          adminRosterDecider,
          ADMIN_ROSTER_STREAM,
          {
            type: 'ApproveAdminRemoval',
            userId,
            userVersion: version,
            change: removal,
            ...(change.type === 'ChangeUserRole' ? { role: change.role } : {}),
            actorId: actor.id,
            userCommandId: commandId,
            now,
          },
          context,
        );
      } catch (err) {
        if (err instanceof DomainError && err.message === ROSTER_BEHIND && attempt < 3) continue;
        throw err;
      }
    }
    try {
      return await app.commands.handle(
        userDecider,
        userDecider.streamId(userId),
        userCommandOf(change, actor.id, now, version),
        { ...context, commandId },
      );
    } catch (err) {
      // The approved removal did not land: the roster counts them again if they are still an ADMIN.
      if (removal) await observeAdmin(app, userId);
      if (!(err instanceof DomainError && err.message === CHANGED_CONCURRENTLY) || attempt >= 3) throw err;
    }
  }
}

/** The users process manager's half: lands an approved removal whose request did not (same id). */
export async function completeAdminRemoval(
  app: AppServices,
  approval: {
    userId: number;
    userVersion: number;
    change: AdminRemoval;
    role?: Role;
    actorId: number | null;
    userCommandId: string;
    at: string;
  },
) {
  const change: GuardedChange =
    approval.change === 'demote'
      ? { type: 'ChangeUserRole', role: approval.role ?? 'USER' }
      : approval.change === 'deactivate'
        ? { type: 'DeactivateUser' }
        : { type: 'DeleteUser' };
  try {
    const result = await app.commands.handle(
      userDecider,
      userDecider.streamId(approval.userId),
      userCommandOf(change, approval.actorId, approval.at, approval.userVersion),
      {
        commandId: approval.userCommandId,
        userId: approval.actorId === null ? null : String(approval.actorId),
      },
    );
    if (approval.change !== 'demote') await app.refreshTokens.revokeAllFor(approval.userId);
    return result.duplicate ? 'already-done' : 'completed';
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // Refused (the user changed since it was judged): it did not land; count them again.
    await observeAdmin(app, approval.userId);
    return 'refused';
  }
}
