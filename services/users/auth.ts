// Sign-in, tokens and registration. Both REST and GraphQL call these functions.

import { randomUUID } from 'node:crypto';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { Tokens } from '../../schema/users/answers.js';
import {
  ChangeOwnPasswordInput,
  LoginInput,
  LogoutInput,
  RefreshInput,
  RegisterUserInput,
} from '../../schema/users/commands.js';
import { type CommandContext, eventIdFor } from '../app/command-handler.js';
import { type AppServices, awaitProjections, nextUserId } from '../app/context.js';
import { burnVerify } from '../auth/passwords.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { DomainError } from '../shared/domain-errors.js';
import { AppError, parseInput } from '../shared/errors.js';
import { observeAdmin } from './admin-roster.js';
import { CLAIM_TAKEN, emailClaimDecider } from './email-claim-decider.js';
import { type UserSessionCommand, userSessionDecider } from './session-decider.js';
import { announceSessionsEnded, endSessionsOf } from './sessions.js';
import { userDecider } from './user-decider.js';
import { findUserRow, findUserRowByEmail, toUserDto, type UserDto, userAnswer } from './user-view.js';

export type { Tokens };

const INVALID_CREDENTIALS = 'Invalid email or password';

export async function login(
  app: AppServices,
  input: unknown,
  client: { ip: string | null },
): Promise<{ user: UserDto; tokens: Tokens }> {
  const { email, password } = parseInput(LoginInput, input);
  const { row, valid } = await checkCounted(app, email, client.ip, async () => {
    const row = await findUserRowByEmail(app, email);
    if (row) return { row, valid: await app.credentials.verify(row.credential_id, password) };
    await burnVerify(password);
    return { row, valid: false };
  });
  if (!row || !valid) {
    throw new AppError('UNAUTHENTICATED', INVALID_CREDENTIALS);
  }
  if (!row.is_active) {
    // The right password: not a guess, whatever the account's standing.
    await app.loginLimit.succeeded(email, client.ip);
    throw new AppError('FORBIDDEN', 'Your account has been deactivated. Please contact your administrator.');
  }
  await app.loginLimit.succeeded(email, client.ip);
  await recordSession(app, row.id, { type: 'RecordSignIn', userId: row.id, ip: client.ip, now: nowIso() });
  return { user: toUserDto(row), tokens: await issueTokens(app, row.id) };
}

const nowIso = () => new Date().toISOString();

/**
 * Counts an attempt at a password (a sign-in, or the current password a change asks for) before it
 * is checked, atomically, so parallel guesses cannot overrun the limit; waits out the slow-down a
 * guessed-at e-mail has (services/auth/login-rate-limit.ts).
 */
async function countAttempt(app: AppServices, email: string, ip: string | null) {
  const attempt = await app.loginLimit.attempt(email, ip);
  if (!attempt.allowed)
    throw new AppError(
      'RATE_LIMITED',
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
  if (attempt.delayMs > 0) await new Promise((r) => setTimeout(r, attempt.delayMs));
}

/**
 * Counts the attempt, then runs the check of the password. A check that throws (no connection in
 * the pool, the database failed while reading the user or the hash) never compared the password:
 * the attempt gives its points back, so an outage does not lock the real user out, and the first
 * error is the one the caller sees. A crash before the give-back leaves the point counted.
 */
async function checkCounted<T>(
  app: AppServices,
  email: string,
  ip: string | null,
  check: () => Promise<T>,
): Promise<T> {
  await countAttempt(app, email, ip);
  try {
    return await check();
  } catch (err) {
    await app.loginLimit.giveBack(email, ip).catch(() => {});
    throw err;
  }
}

/**
 * The current password, for a change of one's own password or e-mail: throttled like a sign-in.
 * A wrong one is a field error (400), not a 401: the caller is signed in.
 */
export async function checkCurrentPassword(
  app: AppServices,
  actor: Actor,
  credentialId: string,
  currentPassword: string | undefined,
) {
  if (!currentPassword)
    throw new AppError('VALIDATION', 'Current password is required', [
      { field: 'currentPassword', message: 'Current password is required' },
    ]);
  const ip = actor.request?.ip ?? null;
  const matches = await checkCounted(app, actor.email, ip, () =>
    app.credentials.verify(credentialId, currentPassword),
  );
  if (!matches)
    throw new AppError('VALIDATION', 'Current password is incorrect', [
      { field: 'currentPassword', message: 'Current password is incorrect' },
    ]);
  await app.loginLimit.succeeded(actor.email, ip);
}

/**
 * Appends a sign-in or sign-out to the user's session stream. Each is a new fact that nothing can
 * refuse, so it is appended without reading the stream first ('any' version): a sign-in costs one
 * write however many came before, and never conflicts with anything.
 */
async function recordSession(app: AppServices, userId: number, command: UserSessionCommand) {
  const commandId = randomUUID();
  const events = userSessionDecider.decide(command, userSessionDecider.initialState());
  await app.store.append(
    userSessionDecider.streamId(userId),
    events.map((e, i) => ({
      id: eventIdFor(commandId, i),
      type: e.type,
      data: e.data,
      metadata: { commandId, correlationId: commandId, causationId: commandId, userId: String(userId) },
      schemaVersion: schemaVersionOf(e.type),
    })),
    'any',
  );
}

/** A new session: its first refresh token, and an access token that names it. */
async function issueTokens(app: AppServices, userId: number): Promise<Tokens> {
  const session = await app.refreshTokens.issue(userId);
  const accessToken = await app.accessTokens.sign(userId, session.familyId);
  return { accessToken, refreshToken: session.token };
}

export async function refresh(app: AppServices, input: unknown): Promise<{ tokens: Tokens }> {
  const { refreshToken } = parseInput(RefreshInput, input);
  const rotated = await app.refreshTokens.rotate(refreshToken);
  if (!rotated.ok) {
    if (rotated.reason === 'reused') {
      app.log.warn({ reason: rotated.reason }, 'refresh token reused: session ended');
      // Its access tokens and sockets end everywhere too, at once.
      await announceSessionsEnded(app, { userId: rotated.userId, sessionIds: [rotated.familyId] });
    }
    throw new AppError('UNAUTHENTICATED', 'Invalid or expired refresh token');
  }
  const row = await findUserRow(app, rotated.userId);
  if (!row?.is_active) {
    await endSessionsOf(app, rotated.userId);
    throw new AppError('UNAUTHENTICATED', 'Invalid or expired refresh token');
  }
  const accessToken = await app.accessTokens.sign(rotated.userId, rotated.familyId);
  return { tokens: { accessToken, refreshToken: rotated.token } };
}

/**
 * Ends the session everywhere: its refresh tokens, its access token (checked on every call) and its
 * sockets. Holding the refresh token is proof enough; without one, the caller's own session ends.
 */
export async function logout(app: AppServices, actor: Actor | null, input: unknown): Promise<void> {
  const { refreshToken } = parseInput(LogoutInput, input);
  let userId = actor?.id ?? null;
  let sessionId = actor?.sessionId ?? null;
  if (refreshToken) {
    const ended = await app.refreshTokens.revokeFamilyOf(refreshToken, userId);
    if (ended) ({ userId, sessionId } = ended);
  } else if (actor?.sessionId) await app.refreshTokens.endSession(actor.sessionId, actor.id);
  if (userId !== null && sessionId) await announceSessionsEnded(app, { userId, sessionIds: [sessionId] });
  // A deleted user signing out: nothing to record.
  if (userId !== null && (await findUserRow(app, userId))) {
    await recordSession(app, userId, { type: 'RecordSignOut', userId, now: nowIso() });
  }
}

export async function me(app: AppServices, actor: Actor | null): Promise<UserDto> {
  authorize(actor, 'profile.read');
  const row = await findUserRow(app, actor.id);
  if (!row) throw new AppError('UNAUTHENTICATED', 'Authentication required');
  return toUserDto(row);
}

/**
 * Creates a user (POST /api/auth/register, also the screens' "create user") and answers with it from
 * the users read model once that has caught up (services/app/answer-after-write.ts).
 */
export async function registerUser(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
  options: { system?: boolean; context?: CommandContext } = {},
): Promise<UserDto> {
  const { userId, position } = await recordNewUser(app, actor, input, options);
  return userAnswer(app, userId, position);
}

/**
 * Records a new user: its e-mail claim, credentials and UserRegistered. `actor` null with
 * `system: true` is the first-start bootstrap of the admin and the demo seed, which need no answer
 * (no projector may run yet to show one).
 */
export async function recordNewUser(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
  options: { system?: boolean; context?: CommandContext } = {},
): Promise<{ userId: number; position: Position | null }> {
  if (!options.system) authorize(actor, 'auth.register');
  const data = parseInput(RegisterUserInput, input);
  const now = nowIso();
  const context = { ...commandContext(actor), ...options.context };
  const correlationId = context.correlationId ?? context.request?.correlationId ?? context.commandId;
  // A retry of this request (same Idempotency-Key) finds its first attempt's claim and goes on with
  // the id that attempt took, so it finishes (or finds) that user instead of answering 409.
  const userId = await claimEmail(app, data.email, await nextUserId(app), now, {
    ...context,
    commandId: undefined,
    correlationId,
  });
  // The hash is stored first, under a fresh id the event names (services/auth/credentials.ts).
  const { password, ...profile } = data;
  let result: Awaited<ReturnType<typeof registerCommand>>;
  const registerCommand = async () => {
    const credentialId = await app.credentials.create(userId, password);
    return app.commands.handle(
      userDecider,
      userDecider.streamId(userId),
      { type: 'RegisterUser', userId, ...profile, credentialId, now },
      { ...context, correlationId },
    );
  };
  try {
    result = await registerCommand();
  } catch (err) {
    // A failed create leaves no claim behind to block the address.
    await releaseAbandonedClaim(app, data.email, userId, {
      ...context,
      commandId: undefined,
      correlationId,
    }).catch(() => {});
    throw err;
  }
  // The roster counts a new active ADMIN at once (the users process manager would, a little later).
  if (result.state.role === 'ADMIN' && result.state.isActive) await observeAdmin(app, userId);
  return { userId, position: result.position };
}

/**
 * How long a claim may stand without its holder's user stream showing the address before it is
 * taken as stale: longer than any create or e-mail change takes, so one in progress is never taken.
 * The users process manager releases such a claim this long after it was made.
 */
export const STALE_CLAIM_MS = 5 * 60_000;

/** The claim stream of an address: named by its blind index, never by the address itself. */
export function claimStreamOf(app: AppServices, email: string): string {
  return emailClaimDecider.streamId(app.blindIndex.email(email));
}

/** A claim as it stands, and whether its holder's own stream shows the address. */
export async function judgeClaim(app: AppServices, email: string) {
  const { state, events } = await app.commands.load(emailClaimDecider, claimStreamOf(app, email));
  const holder = state.claimedBy;
  if (holder === null) return null;
  const claim = events.findLast((e) => e.type === 'UserEmailClaimed');
  const { state: holderState } = await app.commands.load(userDecider, userDecider.streamId(holder));
  return {
    judged: { holder, version: state.version },
    // The claim's own time (its command's `now`), as the callers' `now` is compared with it.
    claimedAt: claim ? Date.parse((claim.data as { at: string }).at) : 0,
    claimEventId: claim?.id ?? '',
    holds:
      holderState.exists && !holderState.deleted && holderState.email?.toLowerCase() === email.toLowerCase(),
  };
}

/**
 * Claims the address for userId and answers the user id the claim is for. A claim is taken over
 * when it is stale: its holder never finished registering, or changed address, or was deleted, and
 * a crash between the two commands left the claim behind. The take-over replaces only the holder it
 * judged, at the claim stream version it judged: of two take-overs of one stale claim, one wins and
 * the other is refused (409), never re-decided.
 */
export async function claimEmail(
  app: AppServices,
  email: string,
  userId: number,
  now: string,
  context: CommandContext,
  attempt = 1,
): Promise<number> {
  const streamId = claimStreamOf(app, email);
  try {
    const result = await app.commands.handle(
      emailClaimDecider,
      streamId,
      { type: 'ClaimEmail', email, userId, now },
      context,
    );
    // A retried request (same Idempotency-Key) finds its first attempt's claim, made for the id that
    // attempt took: that is this request's user.
    const first = result.duplicate ? result.events.find((e) => e.type === 'UserEmailClaimed') : undefined;
    if (first?.type === 'UserEmailClaimed') return first.data.userId;
    if (result.state.claimedBy !== userId) throw new DomainError('CONFLICT', CLAIM_TAKEN);
    return userId;
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'CONFLICT') throw err;
    const claim = await judgeClaim(app, email);
    // Freed between our refusal and this look (the users process manager released it): claim again.
    if (!claim && attempt < 3) return claimEmail(app, email, userId, now, context, attempt + 1);
    if (!claim || claim.holds || Date.parse(now) - claim.claimedAt < STALE_CLAIM_MS) throw err;
    await app.commands.handle(
      emailClaimDecider,
      streamId,
      { type: 'ClaimEmail', email, userId, now, takeOver: claim.judged },
      context,
    );
    return userId;
  }
}

/**
 * Frees an address whose holder's stream no longer shows it (after a delete or an e-mail change, or
 * a registration that never followed its claim). The request that deleted or re-addressed the user
 * calls it, and so does the users process manager; the command id comes from the claim event, so
 * whoever gets there first appends the one release and the other finds it done.
 */
export async function releaseAbandonedClaim(
  app: AppServices,
  email: string,
  holder: number,
  context: CommandContext = {},
  only: { claimEventId?: string } = {},
): Promise<boolean> {
  const claim = await judgeClaim(app, email);
  if (!claim || claim.judged.holder !== holder || claim.holds) return false;
  if (only.claimEventId && claim.claimEventId !== only.claimEventId) return false;
  const result = await app.commands.handle(
    emailClaimDecider,
    claimStreamOf(app, email),
    { type: 'ReleaseEmail', email, userId: holder, judged: claim.judged, now: nowIso() },
    { ...context, commandId: releaseCommandId(claim.claimEventId) },
  );
  return result.events.length > 0 && !result.duplicate;
}

export const releaseCommandId = (claimEventId: string) => `release-email:${claimEventId}`;

export async function changeOwnPassword(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<void> {
  authorize(actor, 'password.changeOwn');
  const { currentPassword, newPassword } = parseInput(ChangeOwnPasswordInput, input);
  const row = await findUserRow(app, actor.id);
  if (!row) throw new AppError('NOT_FOUND', 'User not found');
  await checkCurrentPassword(app, actor, row.credential_id, currentPassword);
  const credentialId = await app.credentials.create(actor.id, newPassword);
  const result = await app.commands.handle(
    userDecider,
    userDecider.streamId(actor.id),
    { type: 'ChangeUserPassword', credentialId, by: 'self', now: new Date().toISOString() },
    commandContext(actor),
  );
  // Whoever else held the old password is signed out everywhere; this session goes on.
  await endSessionsOf(app, actor.id, actor.sessionId);
  await awaitProjections(app, result.position, ['users']);
}
