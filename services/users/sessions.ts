// Ending sessions everywhere at once. The session's tokens are ended in Postgres (refresh-tokens.ts),
// which every gateway checks; this also tells every gateway, on the change channel the projector
// uses (topic 'session', which no client can subscribe to), so each drops what it remembers about
// those sessions and closes their sockets at once instead of within seconds. Best effort: a lost
// message only leaves a remembered check to expire (services/gateway/session-checks.ts).
import type { ChangeNotice } from '../../projections/projection.js';
import type { AppServices } from '../app/context.js';

export interface SessionsEnded {
  userId: number;
  /** The sessions that ended; absent: every session of the user. */
  sessionIds?: string[];
}

export async function announceSessionsEnded(app: AppServices, message: SessionsEnded): Promise<void> {
  const data = { userId: message.userId };
  const notices: ChangeNotice[] = message.sessionIds
    ? message.sessionIds.map((id) => ({ topic: 'session', id, data }))
    : [{ topic: 'session', id: '*', data }];
  if (notices.length === 0) return;
  await app.redis.publish(`${app.config.REDIS_PREFIX}:changes`, JSON.stringify(notices)).catch(() => {});
}

/** Ends every session of a user (but `except`), everywhere. */
export async function endSessionsOf(app: AppServices, userId: number, except?: string): Promise<void> {
  const ended = await app.refreshTokens.revokeAllFor(userId, except);
  await announceSessionsEnded(app, except ? { userId, sessionIds: ended } : { userId });
}
