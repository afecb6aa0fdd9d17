// The callers' access rows (role, active, deleted), remembered between requests. Every request and
// every WebSocket connection resolves its caller from the users read model; at 100 commands/s that
// read was one statement in four of the gateway's. A remembered row is dropped as soon as a notice
// about that user arrives (the projector publishes one after every users commit), so a role change
// or a deactivation takes effect here within the notice's delivery, as it did through the read
// model. While notices cannot arrive (Redis down or reconnecting) nothing is remembered or served,
// and an entry lives at most MAX_AGE_MS in any case: the row is always checked, never trusted for long.
import { LRUCache } from 'lru-cache';
import type { ChangeNotice } from '../../projections/projection.js';
import type { ActorRow } from '../users/user-view.js';

/** The longest a remembered row is served without a fresh read, whatever the notices say. */
export const ACTOR_ROW_MAX_AGE_MS = 2000;

export interface ActorRowSource {
  read(id: number): Promise<ActorRow | undefined>;
  /** True while change notices arrive (LiveBus.connected). */
  connected(): boolean;
}

export class ActorRows {
  private readonly rows: LRUCache<number, { row: ActorRow | null }>;
  /**
   * Bumped for a user on each notice (and for everyone on a reconnect): a read that started before
   * a bump may hold the row as it was before the change, so it is used but not remembered.
   */
  private readonly generations = new Map<number, number>();
  private epoch = 0;

  constructor(
    private readonly source: ActorRowSource,
    maxAgeMs = ACTOR_ROW_MAX_AGE_MS,
  ) {
    this.rows = new LRUCache({ max: 10_000, ttl: maxAgeMs });
  }

  async get(id: number): Promise<ActorRow | undefined> {
    if (!this.source.connected()) {
      this.clear();
      return this.source.read(id);
    }
    const hit = this.rows.get(id);
    if (hit) return hit.row ?? undefined;
    const before = this.stamp(id);
    const row = await this.source.read(id);
    if (this.stamp(id) === before && this.source.connected()) this.rows.set(id, { row: row ?? null });
    return row;
  }

  /** The notices of one message: users they name are read afresh next time. */
  noticed(notices: readonly ChangeNotice[]) {
    for (const n of notices) {
      if (n.topic !== 'user') continue;
      const id = Number(n.id);
      this.rows.delete(id);
      this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
      // Only reads in flight need the bump; the map stays small.
      if (this.generations.size > 10_000) {
        this.generations.clear();
        this.epoch++;
      }
    }
  }

  /** Notices may have been missed (a reconnect): forget everything. */
  clear() {
    this.rows.clear();
    this.epoch++;
  }

  private stamp(id: number) {
    return `${this.epoch}:${this.generations.get(id) ?? 0}`;
  }
}
