// Sign-in, tokens and registration (spec 1 §7 Auth). Both REST and GraphQL call these functions.
import {
  ChangeOwnPasswordInput,
  LoginInput,
  LogoutInput,
  RefreshInput,
  RegisterUserInput,
} from '../../schema/commands/user.js';
import { burnVerify, hashPassword, verifyPassword } from '../auth/passwords.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { DomainError } from '../domain/errors.js';
import { userDecider } from '../domain/user/decider.js';
import { emailClaimDecider } from '../domain/user/email-claim.js';
import type { CommandContext } from './command-handler.js';
import { type AppServices, awaitProjections, nextUserId } from './context.js';
import { AppError, parseInput } from './errors.js';
import { findUserRow, findUserRowByEmail, toUserDto, type UserDto } from './user-view.js';

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

const INVALID_CREDENTIALS = 'Invalid email or password';

export async function login(
  app: AppServices,
  input: unknown,
  client: { ip: string | null },
): Promise<{ user: UserDto; tokens: Tokens }> {
  const { email, password } = parseInput(LoginInput, input);
  if (await app.loginLimit.isLimited(email, client.ip)) {
    throw new AppError(
      'RATE_LIMITED',
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
  }
  const row = await findUserRowByEmail(app, email);
  let valid = false;
  if (row) valid = await verifyPassword(row.password_hash, password);
  else await burnVerify(password);
  if (!row || !valid) {
    await app.loginLimit.recordFailure(email, client.ip);
    throw new AppError('UNAUTHENTICATED', INVALID_CREDENTIALS);
  }
  if (!row.is_active) {
    throw new AppError('FORBIDDEN', 'Your account has been deactivated. Please contact your administrator.');
  }
  await app.loginLimit.reset(email);
  const now = new Date().toISOString();
  await app.commands.handle(
    userDecider,
    userDecider.streamId(row.id),
    { type: 'RecordSignIn', ip: client.ip, now },
    {
      userId: String(row.id),
    },
  );
  return { user: toUserDto(row), tokens: await issueTokens(app, row.id) };
}

async function issueTokens(app: AppServices, userId: number): Promise<Tokens> {
  const [accessToken, refresh] = await Promise.all([
    app.accessTokens.sign(userId),
    app.refreshTokens.issue(userId),
  ]);
  return { accessToken, refreshToken: refresh.token };
}

export async function refresh(app: AppServices, input: unknown): Promise<{ tokens: Tokens }> {
  const { refreshToken } = parseInput(RefreshInput, input);
  const rotated = await app.refreshTokens.rotate(refreshToken);
  if (!rotated.ok) {
    if (rotated.reason === 'reused')
      app.log.warn({ reason: rotated.reason }, 'refresh token reused: family revoked');
    throw new AppError('UNAUTHENTICATED', 'Invalid or expired refresh token');
  }
  const row = await findUserRow(app, rotated.userId);
  if (!row?.is_active) {
    await app.refreshTokens.revokeAllFor(rotated.userId);
    throw new AppError('UNAUTHENTICATED', 'Invalid or expired refresh token');
  }
  const accessToken = await app.accessTokens.sign(rotated.userId);
  return { tokens: { accessToken, refreshToken: rotated.token } };
}

/** Revokes the session's refresh-token family. Holding the refresh token is proof enough. */
export async function logout(app: AppServices, actor: Actor | null, input: unknown): Promise<void> {
  const { refreshToken } = parseInput(LogoutInput, input);
  let userId = actor?.id ?? null;
  if (refreshToken) userId = (await app.refreshTokens.revokeFamilyOf(refreshToken, userId)) ?? userId;
  if (userId !== null) {
    await app.commands
      .handle(
        userDecider,
        userDecider.streamId(userId),
        { type: 'RecordSignOut', now: new Date().toISOString() },
        {
          userId: String(userId),
        },
      )
      .catch(() => {
        /* a deleted user signing out: nothing to record */
      });
  }
}

export async function me(app: AppServices, actor: Actor | null): Promise<UserDto> {
  authorize(actor, 'profile.read');
  const row = await findUserRow(app, actor.id);
  if (!row) throw new AppError('UNAUTHENTICATED', 'Authentication required');
  return toUserDto(row);
}

/**
 * Creates a user (POST /api/auth/register, also the screens' "create user"). `actor` null with
 * `system: true` is the first-start bootstrap of the admin.
 */
export async function registerUser(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
  options: { system?: boolean; context?: CommandContext } = {},
): Promise<UserDto> {
  if (!options.system) authorize(actor, 'auth.register');
  const data = parseInput(RegisterUserInput, input);
  const now = new Date().toISOString();
  const userId = await nextUserId(app);
  const context = { ...commandContext(actor), ...options.context };
  const correlationId = context.correlationId ?? context.request?.correlationId ?? context.commandId;
  await claimEmail(app, data.email, userId, now, { ...context, commandId: undefined, correlationId });
  const passwordHash = await hashPassword(data.password);
  const result = await app.commands.handle(
    userDecider,
    userDecider.streamId(userId),
    { type: 'RegisterUser', userId, ...data, passwordHash, now },
    { ...context, correlationId },
  );
  await awaitProjections(app, result.position, ['UserRegistered']);
  const row = await findUserRow(app, userId);
  if (!row) throw new AppError('INTERNAL', 'User was created but is not readable yet');
  return toUserDto(row);
}

/**
 * How long a claim may stand without its holder's user stream showing the address before it is
 * taken as stale: longer than any create or e-mail change takes, so one in progress is never taken.
 */
const STALE_CLAIM_MS = 5 * 60_000;

/**
 * Claims the address for userId. A claim is taken over when it is stale: its holder never finished
 * registering, or changed address, or was deleted, and a crash between the two commands left the
 * claim behind (without this the address would be blocked for good).
 */
export async function claimEmail(
  app: AppServices,
  email: string,
  userId: number,
  now: string,
  context: CommandContext,
): Promise<void> {
  const streamId = emailClaimDecider.streamId(email);
  try {
    const { state } = await app.commands.handle(
      emailClaimDecider,
      streamId,
      { type: 'ClaimEmail', email, userId, now },
      context,
    );
    // A retried request (same Idempotency-Key) may find its first attempt's claim, made for another
    // new user id: the address is then taken, not ours.
    if (state.claimedBy !== userId)
      throw new DomainError('CONFLICT', 'A user with this email already exists');
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'CONFLICT') throw err;
    const { state, events } = await app.commands.load(emailClaimDecider, streamId);
    const holder = state.claimedBy;
    const claimedAt = events.at(-1)?.createdAt.getTime() ?? Date.parse(now);
    if (holder === null || Date.parse(now) - claimedAt < STALE_CLAIM_MS) throw err;
    const { state: holderState } = await app.commands.load(userDecider, userDecider.streamId(holder));
    const holds =
      holderState.exists && !holderState.deleted && holderState.email?.toLowerCase() === email.toLowerCase();
    if (holds) throw err;
    await app.commands.handle(
      emailClaimDecider,
      streamId,
      { type: 'ClaimEmail', email, userId, now, holderAbandoned: true },
      context,
    );
  }
}

export async function changeOwnPassword(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<void> {
  authorize(actor, 'password.changeOwn');
  const { currentPassword, newPassword } = parseInput(ChangeOwnPasswordInput, input);
  const row = await findUserRow(app, actor.id);
  if (!row) throw new AppError('NOT_FOUND', 'User not found');
  if (!(await verifyPassword(row.password_hash, currentPassword))) {
    throw new AppError('VALIDATION', 'Current password is incorrect', [
      { field: 'currentPassword', message: 'Current password is incorrect' },
    ]);
  }
  const passwordHash = await hashPassword(newPassword);
  const result = await app.commands.handle(
    userDecider,
    userDecider.streamId(actor.id),
    { type: 'ChangeUserPassword', passwordHash, by: 'self', now: new Date().toISOString() },
    commandContext(actor),
  );
  await awaitProjections(app, result.position, ['UserPasswordChanged']);
}
