// Whether the session an access token names is still on, remembered between requests like the
// callers' rows (actor-rows.ts): a session that ends is announced on the change channel (topic
// 'session', services/users/sessions.ts), which drops it here at once; nothing is remembered while
// announcements cannot arrive, and an answer lives at most SESSION_CHECK_MAX_AGE_MS in any case, so
// a lost announcement delays the end by that much at most. Only live answers are kept: an ended
// session never comes back.
import { LRUCache } from 'lru-cache';
import type { ChangeNotice } from '../../projections/projection.js';

export const SESSION_CHECK_MAX_AGE_MS = 2000;

export interface SessionSource {
  isLive(sessionId: string, userId: number): Promise<boolean>;
  connected(): boolean;
}

export class SessionChecks {
  private readonly live: LRUCache<string, { userId: number }>;
  /** Bumped on every announcement: a check in flight across one is used but not remembered. */
  private epoch = 0;

  constructor(
    private readonly source: SessionSource,
    maxAgeMs = SESSION_CHECK_MAX_AGE_MS,
  ) {
    this.live = new LRUCache({ max: 10_000, ttl: maxAgeMs });
  }

  async check(sessionId: string, userId: number): Promise<boolean> {
    if (!this.source.connected()) {
      this.live.clear();
      return this.source.isLive(sessionId, userId);
    }
    if (this.live.get(sessionId)?.userId === userId) return true;
    const before = this.epoch;
    const ok = await this.source.isLive(sessionId, userId);
    if (ok && before === this.epoch && this.source.connected()) this.live.set(sessionId, { userId });
    return ok;
  }

  noticed(notices: readonly ChangeNotice[]) {
    for (const n of notices) {
      if (n.topic !== 'session') continue;
      this.epoch++;
      if (n.id !== '*') this.live.delete(n.id);
      else {
        const userId = (n.data as { userId?: number } | undefined)?.userId;
        for (const [sid, entry] of this.live.entries()) if (entry.userId === userId) this.live.delete(sid);
      }
    }
  }

  clear() {
    this.live.clear();
    this.epoch++;
  }
}
