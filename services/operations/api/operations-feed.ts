// The live operations overview: one computation per gateway every 2 s while anyone watches, shared by
// every subscriber (each one was authorised when it subscribed). Pushed only when something changed.
import { Repeater } from 'graphql-yoga';
import type { AppServices } from '../../app/context.js';
import { collectOverview, type OperationsOverview } from '../operations.js';

export const OPERATIONS_FEED_INTERVAL_MS = 2000;

class OverviewFeed {
  private readonly listeners = new Set<(overview: OperationsOverview) => void>();
  private timer: NodeJS.Timeout | null = null;
  private latest: OperationsOverview | null = null;
  private latestKey = '';
  private running: Promise<void> | null = null;
  private again = false;
  private lastError = '';

  constructor(private readonly app: AppServices) {}

  subscribe(): AsyncIterable<OperationsOverview> {
    return new Repeater<OperationsOverview>(async (push, stop) => {
      const listener = (overview: OperationsOverview) => void push(overview);
      this.listeners.add(listener);
      if (this.latest) listener(this.latest);
      else this.refresh();
      if (!this.timer) {
        this.timer = setInterval(() => this.refresh(), OPERATIONS_FEED_INTERVAL_MS);
        this.timer.unref();
      }
      await stop;
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
        this.latest = null;
        this.latestKey = '';
      }
    });
  }

  /** Computes the overview now (after a retry, say); one computation at a time. */
  refresh() {
    if (this.listeners.size === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = collectOverview(this.app)
      .then((overview) => {
        this.lastError = '';
        const key = JSON.stringify({ ...overview, generatedAt: '' });
        if (key === this.latestKey) return;
        this.latest = overview;
        this.latestKey = key;
        for (const listener of this.listeners) listener(overview);
      })
      .catch((err) => {
        // Once per distinct failure, not every 2 s while Postgres is away.
        if (String(err) === this.lastError) return;
        this.lastError = String(err);
        this.app.log.warn({ err: this.lastError }, 'operations overview failed');
      })
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }
}

const feeds = new WeakMap<AppServices, OverviewFeed>();

export function operationsFeed(app: AppServices): OverviewFeed {
  let feed = feeds.get(app);
  if (!feed) {
    feed = new OverviewFeed(app);
    feeds.set(app, feed);
  }
  return feed;
}
