// What the projections tell the gateways after their commits, on Redis: change notices and
// checkpoint moves. Every projection's batches that end in one turn of the event loop (one read of
// the log wakes them all) go out as one MULTI: one write to Redis, one message per channel to each
// gateway, instead of one MULTI per projection per batch. At 100 commands/s that was eight MULTIs
// per command, each a write syscall here and a wake-up in Redis and in every gateway.
//
// A batch that wrote nothing (no event the projection handles: most projections, most batches)
// waits up to QUIET_FLUSH_MS for one that did, so the checkpoint moves of the projections a command
// does not concern ride on the message of the one it does: a mutation waits only for the
// projections that handle its events (catch-up.ts), so these moves are not on its path.
//
// Order is kept: within a flush the notices go before the checkpoints (a gateway then holds the
// row read for a push before the mutation waiting on that checkpoint looks for it: fresh-reads.ts),
// and flushes go out in order on one connection.
import type { Redis } from 'ioredis';
import type { Position } from '../services/eventstore/port.js';
import type { Logger } from '../services/shared/log.js';
import type { ChangeNotice } from './projection.js';

/** One checkpoint move as published: the message is an array of these. */
export interface CheckpointMove {
  name: string;
  position: Position;
}

/** How long a checkpoint move over a batch that wrote nothing may wait for company (ms). */
export const QUIET_FLUSH_MS = 10;

export class ChangePublisher {
  private notices: ChangeNotice[] = [];
  private readonly moves = new Map<string, Position>();
  /** A flush is due at the end of this turn. */
  private scheduled = false;
  /** A flush of quiet moves only is due later (QUIET_FLUSH_MS). */
  private quiet: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  /**
   * Never waits: the next batch never waits on Redis (readers fall back to polling checkpoints).
   * `wrote`: the batch changed the read model (its move is on some mutation's path: sent this turn).
   */
  publish(name: string, notices: ChangeNotice[], to: Position, wrote = true) {
    for (const n of notices) this.notices.push({ ...n, at: to });
    const known = this.moves.get(name);
    if (known === undefined || to > known) this.moves.set(name, to);
    if (this.scheduled) return;
    if (wrote || notices.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    } else this.quiet ??= setTimeout(() => this.flush(), QUIET_FLUSH_MS);
  }

  /** Sends what is pending now (a stopping runner's last moves). */
  flush() {
    this.scheduled = false;
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = null;
    if (this.moves.size === 0 && this.notices.length === 0) return;
    const notices = this.notices;
    const moves: CheckpointMove[] = [...this.moves].map(([name, position]) => ({ name, position }));
    this.notices = [];
    this.moves.clear();
    const multi = this.redis.multi();
    if (notices.length) multi.publish(`${this.prefix}:changes`, JSON.stringify(notices));
    if (moves.length) multi.publish(`${this.prefix}:checkpoint`, JSON.stringify(moves));
    // The app's client fails at once while disconnected and times out otherwise (services/shared/redis.ts),
    // so nothing piles up; an outage is logged once by the Redis monitor, not per flush.
    void multi.exec().catch((err) => {
      if (this.redis.status === 'ready') this.log.warn({ err: String(err) }, 'publish after commit failed');
    });
  }
}
