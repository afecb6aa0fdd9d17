// A mutation answers from its read model once the projection has passed its events (read your
// writes). The same projection batch also sends a live notice, and the gateway reads the changed row
// at once for the screens subscribed to it (prefetchUserChanges). That read started after the batch
// committed, so it is as fresh as the answer needs: the mutation takes it instead of reading again.
// One query per command fewer on the gateway's hottest path.
import type { Position } from '../eventstore/port.js';

/** A read started after the read model had applied everything up to `at`. */
interface Offered {
  at: Position;
  read: Promise<unknown>;
  expires: number;
}

/** A mutation takes its row within milliseconds of the notice; older offers are of no use. */
const OFFER_MS = 1000;
const MAX_OFFERS = 2000;

export class FreshReads {
  private readonly offers = new Map<string, Offered>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `read` started after the read model passed `at` (a notice published after its commit). */
  offer(key: string, at: Position, read: Promise<unknown>) {
    // A failed read is not offered: the taker would fail where its own query might not.
    read.catch(() => {
      if (this.offers.get(key)?.read === read) this.offers.delete(key);
    });
    const known = this.offers.get(key);
    if (known && known.at > at) return;
    this.offers.delete(key); // re-inserted last: the map's order is the eviction order
    this.offers.set(key, { at, read, expires: this.now() + OFFER_MS });
    if (this.offers.size > MAX_OFFERS) this.offers.delete(this.offers.keys().next().value as string);
  }

  /** The offered read of `key` if it reflects `position` or later; null: read it yourself. */
  take<T>(key: string, position: Position): Promise<T> | null {
    const offered = this.offers.get(key);
    if (!offered) return null;
    if (offered.expires < this.now()) {
      this.offers.delete(key);
      return null;
    }
    return offered.at >= position ? (offered.read as Promise<T>) : null;
  }

  get size() {
    return this.offers.size;
  }
}
