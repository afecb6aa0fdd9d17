// Ending sessions everywhere at once. The session's tokens are ended in Postgres (refresh-tokens.ts),
// which every gateway checks; this also tells every gateway on Redis, so each drops what it
// remembers about those sessions and closes their sockets at once instead of within seconds. Best
// effort: a lost message only leaves a remembered check to expire (services/gateway/session-checks.ts).
import type { AppServices } from './context.js';

export const sessionsChannel = (prefix: string) => `${prefix}:sessions-ended`;

export interface SessionsEnded {
  userId: number;
  /** The sessions that ended; absent: every session of the user. */
  sessionIds?: string[];
}

export async function announceSessionsEnded(app: AppServices, message: SessionsEnded): Promise<void> {
  await app.redis.publish(sessionsChannel(app.config.REDIS_PREFIX), JSON.stringify(message)).catch(() => {});
}

/** Ends every session of a user (but `except`), everywhere. */
export async function endSessionsOf(app: AppServices, userId: number, except?: string): Promise<void> {
  const ended = await app.refreshTokens.revokeAllFor(userId, except);
  await announceSessionsEnded(app, except ? { userId, sessionIds: ended } : { userId });
}
