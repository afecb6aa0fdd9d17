// Read your writes: a mutation waits until the projections that handle its events have passed its
// position. Checkpoints arrive on Redis right after each projection commit; a short Postgres poll
// covers a missed message (Redis pub/sub is fire-and-forget) and all of them while Redis is down.
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Position } from '../services/eventstore/port.js';
import { keepSubscribed, unsubscribeQuietly } from '../services/shared/redis.js';
import type { CheckpointMove } from './publisher.js';

interface Waiter {
  position: Position;
  names: string[];
  resolve(ok: boolean): void;
}

export class CatchUpWaiter {
  private readonly known = new Map<string, Position>();
  private readonly waiters = new Set<Waiter>();
  private readonly channel: string;
  private poller: NodeJS.Timeout | null = null;

  constructor(private readonly opts: { pool: pg.Pool; subscriber: Redis; prefix: string; pollMs?: number }) {
    this.channel = `${opts.prefix}:checkpoint`;
  }

  async start() {
    this.opts.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        // An array of moves (projections/publisher.ts); a single move from a projector of an earlier
        // release, during a rolling update.
        const parsed = JSON.parse(message) as CheckpointMove | CheckpointMove[];
        const moves = Array.isArray(parsed) ? parsed : [parsed];
        for (const { name, position } of moves) this.record(name, position);
        this.settle();
      } catch {
        /* ignore malformed */
      }
    });
    // Does not wait for a Redis that is down: the Postgres poll stands in until it is back.
    await keepSubscribed(this.opts.subscriber, this.channel);
  }

  private record(name: string, position: Position) {
    const current = this.known.get(name);
    if (current === undefined || position > current) this.known.set(name, position);
  }

  private settle() {
    for (const w of this.waiters) if (this.satisfied(w)) this.finish(w, true);
  }

  private satisfied(w: Waiter) {
    return w.names.every((n) => (this.known.get(n) ?? '') >= w.position);
  }

  private finish(w: Waiter, ok: boolean) {
    this.waiters.delete(w);
    w.resolve(ok);
    if (this.waiters.size === 0 && this.poller) {
      clearInterval(this.poller);
      this.poller = null;
    }
  }

  private async poll() {
    try {
      const r = await this.opts.pool.query('SELECT name, position FROM projection_checkpoints');
      for (const row of r.rows as Array<{ name: string; position: string }>)
        this.record(row.name, row.position);
      this.settle();
    } catch {
      /* table not there yet: the projector has not started */
    }
  }

  /** True once every named projection has reached `position`; false after `timeoutMs`. */
  async waitFor(position: Position, names: string[], timeoutMs: number): Promise<boolean> {
    const w: Waiter = { position, names, resolve: () => {} };
    if (this.satisfied(w)) return true;
    const done = new Promise<boolean>((resolve) => {
      w.resolve = resolve;
    });
    this.waiters.add(w);
    const timer = setTimeout(() => this.finish(w, false), timeoutMs);
    // Redis keeps `known` current, so a query per command is needed only until the first message
    // of each projection has arrived; a missed message is caught by the interval poll below.
    // Without Redis no checkpoint message arrives: what we know may be stale, so ask Postgres now.
    if (this.opts.subscriber.status !== 'ready' || names.some((n) => !this.known.has(n))) await this.poll();
    this.poller ??= setInterval(() => void this.poll(), this.opts.pollMs ?? 50);
    const ok = await done;
    clearTimeout(timer);
    return ok;
  }

  async close() {
    for (const w of [...this.waiters]) this.finish(w, false);
    await unsubscribeQuietly(this.opts.subscriber, this.channel);
  }
}
