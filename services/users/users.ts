// User administration: every change is a command on the user aggregate, every
// read comes from the users read model. REST and GraphQL both call these functions.
import { sql } from 'kysely';
import type { Page } from '../../schema/shared/answers.js';
import type { OverviewStats, UserStatistics } from '../../schema/users/answers.js';
import {
  AdminChangePasswordInput,
  ChangeRoleInput,
  PageInput,
  UpdateUserInput,
} from '../../schema/users/commands.js';
import { type Role, userSubject } from '../../schema/users/events.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError, parseInput } from '../shared/errors.js';
import { type GuardedChange, observeAdmin, runGuarded } from './admin-roster.js';
import { checkCurrentPassword, claimEmail, releaseAbandonedClaim } from './auth.js';
import { endSessionsOf } from './sessions.js';
import { userDecider } from './user-decider.js';
import { findUserRow, toUserDto, type UserDto, userAnswer } from './user-view.js';

// The answers are written once in schema/users/answers.ts; these names stay for their users.
export type { OverviewStats, UserStatistics } from '../../schema/users/answers.js';

function parseId(id: unknown): number {
  const n = typeof id === 'number' ? id : /^\d+$/.test(String(id)) ? Number(id) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('NOT_FOUND', 'User not found');
  return n;
}

async function requireUser(app: AppServices, id: number) {
  const row = await findUserRow(app, id);
  if (!row) throw new AppError('NOT_FOUND', 'User not found');
  return row;
}

export async function listUsers(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<Page<UserDto>> {
  authorize(actor, 'users.read');
  const { page, limit } = parseInput(PageInput, query);
  const [rows, count] = await Promise.all([
    app.db
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    app.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.n);
  return { data: rows.map(toUserDto), total, page, limit, totalPages: Math.max(1, Math.ceil(total / limit)) };
}

export async function getUser(app: AppServices, actor: Actor | null, id: unknown): Promise<UserDto> {
  authorize(actor, 'users.read');
  return toUserDto(await requireUser(app, parseId(id)));
}

/** Runs a user command; the answer (userAnswer) waits for the users read model. */
function run(
  app: AppServices,
  actor: Actor,
  userId: number,
  command: Parameters<typeof userDecider.decide>[0],
) {
  return app.commands.handle(userDecider, userDecider.streamId(userId), command, commandContext(actor));
}

/** The latest of several writes' positions: the one an answer waits for. */
const lastOf = (...positions: Array<Position | null>) =>
  positions.reduce<Position | null>((a, p) => (p !== null && (a === null || p > a) ? p : a), null);

/** A role, active or delete change, through the last-admin guard (services/users/admin-roster.ts). */
async function runChecked(app: AppServices, actor: Actor, userId: number, change: GuardedChange) {
  const result = await runGuarded(app, actor, userId, change);
  // A promotion or reactivation: the roster counts the admin at once (the process manager would later).
  if (result.state.role === 'ADMIN' && result.state.isActive && result.events.length > 0)
    await observeAdmin(app, userId, commandContext(actor));
  return result;
}

/**
 * Runs the command that follows a claim of a new address; when it fails, frees the claim at once
 * (its holder's stream does not show the address), instead of leaving it to block the address until
 * the users process manager's stale-claim job.
 */
async function withClaimReleasedOnFailure<T>(
  app: AppServices,
  actor: Actor,
  claimed: string | null,
  userId: number,
  command: () => Promise<T>,
): Promise<T> {
  try {
    return await command();
  } catch (err) {
    if (claimed) await releaseAbandonedClaim(app, claimed, userId, commandContext(actor)).catch(() => {});
    throw err;
  }
}

/** After an e-mail change: frees the old address (the users process manager would too, same id). */
async function releaseOldAddress(app: AppServices, actor: Actor, email: string, userId: number) {
  await releaseAbandonedClaim(app, email, userId, commandContext(actor));
}

export async function updateUser(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<UserDto> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  const data = parseInput(UpdateUserInput, input);
  // The current row matters only for changes beyond the profile (address claim, role, active); a
  // plain profile edit goes straight to the decider, which refuses a missing user itself.
  const needsRow = data.email !== undefined || data.role !== undefined || data.isActive !== undefined;
  const row = needsRow ? await requireUser(app, userId) : null;
  const now = new Date().toISOString();
  const newAddress = row && data.email !== undefined && data.email !== row.email_lower;
  // One's own address is a credential: changing it needs the current password, here as on the profile.
  if (newAddress && userId === actor.id)
    await checkCurrentPassword(app, actor, row.credential_id, data.currentPassword);
  if (newAddress) await claimEmail(app, data.email!, userId, now, commandContext(actor));
  const profile = await withClaimReleasedOnFailure(app, actor, newAddress ? data.email! : null, userId, () =>
    run(app, actor, userId, {
      type: 'UpdateUserProfile',
      email: data.email,
      firstName: data.firstName,
      lastName: data.lastName,
      now,
    }),
  );
  let last = profile.position;
  if (newAddress && row.email_lower) await releaseOldAddress(app, actor, row.email_lower, userId);
  if (row && data.role !== undefined && data.role !== row.role)
    last = lastOf(
      last,
      (await runChecked(app, actor, userId, { type: 'ChangeUserRole', role: data.role as Role })).position,
    );
  if (row && data.isActive === false && row.is_active) {
    last = lastOf(last, (await runChecked(app, actor, userId, { type: 'DeactivateUser' })).position);
    await endSessionsOf(app, userId);
  }
  if (row && data.isActive === true && !row.is_active)
    last = lastOf(last, (await reactivate(app, actor, userId)).position);
  return userAnswer(app, userId, last);
}

export async function changeRole(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<UserDto> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  const { role } = parseInput(ChangeRoleInput, input);
  await requireUser(app, userId);
  const result = await runChecked(app, actor, userId, { type: 'ChangeUserRole', role: role as Role });
  return userAnswer(app, userId, result.position);
}

export async function deactivateUser(app: AppServices, actor: Actor | null, id: unknown): Promise<UserDto> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  await requireUser(app, userId);
  const result = await runChecked(app, actor, userId, { type: 'DeactivateUser' });
  // Sessions end at once (the access token is refused too: resolveActor reads is_active).
  await endSessionsOf(app, userId);
  return userAnswer(app, userId, result.position);
}

export async function reactivateUser(app: AppServices, actor: Actor | null, id: unknown): Promise<UserDto> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  await requireUser(app, userId);
  const result = await reactivate(app, actor, userId);
  return userAnswer(app, userId, result.position);
}

async function reactivate(app: AppServices, actor: Actor, userId: number) {
  const result = await run(app, actor, userId, { type: 'ReactivateUser', now: new Date().toISOString() });
  // A reactivated ADMIN: the roster counts them at once (the process manager would later).
  if (result.state.role === 'ADMIN' && result.events.length > 0)
    await observeAdmin(app, userId, commandContext(actor));
  return result;
}

/**
 * Removes the user from every list; the stream (their history) stays. The address becomes free at
 * once: this request releases it, with the command id the users process manager's reaction to
 * UserDeleted uses too, so exactly one release is appended whoever gets there first.
 */
export async function deleteUser(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  const row = await requireUser(app, userId);
  const result = await runChecked(app, actor, userId, { type: 'DeleteUser' });
  await endSessionsOf(app, userId);
  const address = result.state.email ?? row.email_lower;
  if (address) await releaseOldAddress(app, actor, address, userId);
  await awaitProjections(app, result.position, ['users']);
}

/**
 * Erases a deleted user's personal data for good (GDPR art. 17): UserForgotten on their stream, then
 * their data key and credentials are deleted. The projections erase the read models on the event;
 * the users process manager deletes the key again on it (a crash between the two steps), and a
 * retry of this call does too: every step is idempotent.
 */
export async function forgetUser(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  const result = await app.commands.handle(
    userDecider,
    userDecider.streamId(userId),
    { type: 'ForgetUser', now: new Date().toISOString() },
    commandContext(actor),
  );
  await eraseSubject(app, userId);
  await awaitProjections(app, result.position, ['users', 'activity']);
}

/** Deletes a forgotten user's data key, credentials and sessions (idempotent). */
export async function eraseSubject(app: AppServices, userId: number): Promise<void> {
  await app.subjectKeys.forget(userSubject(userId));
  await app.credentials.deleteAllOf(userId);
  await endSessionsOf(app, userId);
}

export async function adminChangePassword(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<void> {
  authorize(actor, 'users.write');
  const userId = parseId(id);
  const { newPassword } = parseInput(AdminChangePasswordInput, input);
  // One's own password is changed with the current one (changeOwnPassword), never set over it.
  if (userId === actor.id) throw new AppError('FORBIDDEN', 'Use Change Password to change your own password');
  await requireUser(app, userId);
  const credentialId = await app.credentials.create(userId, newPassword);
  // Someone else sets the password: whoever held the old one is signed out. Before the change too,
  // so a crash between the two steps cannot leave the old sessions alive after the reset.
  const othersSessions = userId !== actor.id;
  if (othersSessions) await endSessionsOf(app, userId);
  const result = await run(app, actor, userId, {
    type: 'ChangeUserPassword',
    credentialId,
    by: 'admin',
    now: new Date().toISOString(),
  });
  await awaitProjections(app, result.position, ['users']);
  if (othersSessions) await endSessionsOf(app, userId);
}

export async function getProfile(app: AppServices, actor: Actor | null): Promise<UserDto> {
  authorize(actor, 'profile.read');
  return toUserDto(await requireUser(app, actor.id));
}

/** Own profile: names and e-mail; role and active state are not the user's to change. */
export async function updateProfile(app: AppServices, actor: Actor | null, input: unknown): Promise<UserDto> {
  authorize(actor, 'profile.write');
  const { currentPassword, ...data } = parseInput(
    UpdateUserInput.pick({ email: true, firstName: true, lastName: true, currentPassword: true }).strict(),
    input,
  );
  const row = await requireUser(app, actor.id);
  const now = new Date().toISOString();
  const newAddress = data.email !== undefined && data.email !== row.email_lower;
  if (newAddress) await checkCurrentPassword(app, actor, row.credential_id, currentPassword);
  if (newAddress) await claimEmail(app, data.email!, actor.id, now, commandContext(actor));
  const result = await withClaimReleasedOnFailure(app, actor, newAddress ? data.email! : null, actor.id, () =>
    run(app, actor, actor.id, { type: 'UpdateUserProfile', ...data, now }),
  );
  if (newAddress && row.email_lower) await releaseOldAddress(app, actor, row.email_lower, actor.id);
  return userAnswer(app, actor.id, result.position);
}

/**
 * Sign-in figures come from UserSignedIn events (via the read model); companiesManaged counts the
 * companies the user is assigned to as processor, approver or accountant; approvalsCreated the
 * approvals they created (not deleted).
 */
export async function userStatistics(
  app: AppServices,
  actor: Actor | null,
  query: { userId?: unknown },
): Promise<UserStatistics> {
  authorize(actor, 'profile.read');
  const userId = query.userId === undefined || query.userId === '' ? actor.id : parseId(query.userId);
  if (userId !== actor.id) authorize(actor, 'users.read');
  const [row, companiesManaged, approvalsCreated] = await Promise.all([
    requireUser(app, userId),
    companiesAssignedTo(app, userId),
    approvalsCreatedBy(app, userId),
  ]);
  return {
    totalLogins: row.total_logins,
    lastLogin: row.last_login_at ? row.last_login_at.toISOString() : null,
    companiesManaged,
    approvalsCreated,
  };
}

export async function overviewStats(app: AppServices, actor: Actor | null): Promise<OverviewStats> {
  authorize(actor, 'users.read');
  const rows = await app.db
    .selectFrom('users')
    .select([
      'role',
      (eb) => eb.fn.countAll<string>().as('total'),
      sql<string>`count(*) FILTER (WHERE is_active)`.as('active'),
      sql<string>`count(*) FILTER (WHERE created_at >= date_trunc('month', now()))`.as('new_this_month'),
    ])
    .where('deleted_at', 'is', null)
    .groupBy('role')
    .execute();
  const usersByRole: Record<Role, number> = { ADMIN: 0, MODERATOR: 0, USER: 0, GUEST: 0 };
  let totalUsers = 0;
  let activeUsers = 0;
  let newUsersThisMonth = 0;
  for (const r of rows) {
    usersByRole[r.role] = Number(r.total);
    totalUsers += Number(r.total);
    activeUsers += Number(r.active);
    newUsersThisMonth += Number(r.new_this_month);
  }
  return { totalUsers, activeUsers, newUsersThisMonth, usersByRole };
}

// User statistics read the companies' and approvals' tables through the database, not their modules.

/** Companies a user is assigned to in any role (user statistics: companiesManaged). */
export async function companiesAssignedTo(app: AppServices, userId: number): Promise<number> {
  const r = await app.db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('processor_id', '=', userId),
        eb('approver_id', '=', userId),
        eb('accountant_id', '=', userId),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A user's approvalsCreated (deleted ones not counted). */
export async function approvalsCreatedBy(app: AppServices, userId: number): Promise<number> {
  const r = await app.db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('created_by', '=', userId)
    .where(sql<boolean>`NOT deleted`)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
