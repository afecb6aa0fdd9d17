// The store's LISTEN connection: one per store, shared by every subscriber in this process. It counts
// the notifications (a shared read is reused only if none came after it began) and wakes the waiters.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { CHANNEL } from './postgres-schema.js';

export class LogListener {
  /** Notifications seen so far: a shared read is reused only if no notification came after it began. */
  wakes = 0;
  private readonly wake = new EventEmitter();
  private client: pg.Client | null = null;
  private starting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {
    this.wake.setMaxListeners(0);
  }

  /** One LISTEN connection per store, shared by every subscriber in this process. */
  ensure(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    if (this.starting) return this.starting;
    this.starting = (async () => {
      const client = new pg.Client(this.pool.options);
      client.on('notification', () => {
        this.wakes++;
        this.wake.emit('wake');
      });
      client.on('error', () => {
        // Polling keeps subscribers going; try to listen again on the next wait.
        this.client = null;
        client.end().catch(() => {});
      });
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.client = client;
    })()
      .catch(() => {
        /* polling fallback */
      })
      .finally(() => {
        this.starting = null;
      });
    return this.starting;
  }

  /** Resolves on a notification, after `ms`, or when aborted. */
  waitForWake(ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woke: boolean) => {
        clearTimeout(timer);
        this.wake.off('wake', onWake);
        signal?.removeEventListener('abort', onAbort);
        resolve(woke);
      };
      const onWake = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.wake.on('wake', onWake);
      signal?.addEventListener('abort', onAbort);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake.emit('wake');
    const l = this.client;
    this.client = null;
    if (l) await l.end().catch(() => {});
  }
}
