// The log's end, witnessed outside the database. Anchors (anchors.ts) pin everything up to the last
// one; the events after it are pinned by nothing the database does not hold. So after each commit the
// store tells the witness each stream's new last version, and `audit verify` compares: a stream the
// witness saw at version 7 that the log ends at 5 lost versions 6 and 7, named exactly, even when
// every read model's checkpoint was wound back with them. The anchor job forgets what an anchor now
// covers, so the witness holds only the streams written since the last anchor.
//
// Kept in Redis (the product's other store, not the database an attacker would own), one hash per
// database: field = stream id, value = its last version seen. Written after the commit and never
// awaited by the append: a crash or a Redis outage between the two leaves an event unwitnessed (less
// evidence), never a witnessed event that was not committed (a false alarm). A database made anew
// under the same name has another oid, so another key.
import type pg from 'pg';

/** The few Redis calls the witness makes (ioredis has them): no client type here. */
export interface WitnessRedis {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  hgetall(key: string): Promise<Record<string, string>>;
}

/** Raise each stream's version, never lower it: witnesses from two processes arrive in any order. */
const RAISE = `
for i = 1, #ARGV, 2 do
  local seen = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > seen then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0`;

/** Forget a stream an anchor covers up to the version it covers; a later version stays. */
const FORGET = `
for i = 1, #ARGV, 2 do
  local seen = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if seen > 0 and seen <= tonumber(ARGV[i + 1]) then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0`;

/** Arguments per Redis call: an anchor's heads (up to 10,000 streams) go in slices. */
const SLICE = 1000;

/** The witness's key for this database: its name and oid under the deployment's prefix. */
export async function witnessKey(pool: pg.Pool, prefix: string): Promise<string> {
  const r = await pool.query<{ name: string; oid: string }>(
    'SELECT datname AS name, oid::text AS oid FROM pg_database WHERE datname = current_database()',
  );
  return `${prefix}:audit:witness:${r.rows[0].name}:${r.rows[0].oid}`;
}

export class TailWitness {
  private pending = new Map<string, number>();
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: WitnessRedis,
    readonly key: string,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** After a commit: each stream's new last version. Sent on the next tick, many commits at once. */
  committed(heads: Iterable<readonly [streamId: string, version: number]>): void {
    for (const [streamId, version] of heads)
      if (version > (this.pending.get(streamId) ?? 0)) this.pending.set(streamId, version);
    if (this.scheduled || this.pending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flushing.then(() => this.flush());
    });
  }

  /**
   * What was waiting to be sent when called has been sent (tests; the anchor job before it trims).
   * Not what comes meanwhile: under a steady stream of appends that would never end.
   */
  async settled(): Promise<void> {
    if (this.pending.size > 0) this.flushing = this.flushing.then(() => this.flush());
    await this.flushing;
  }

  private async flush() {
    const heads = [...this.pending];
    this.pending = new Map();
    for (let i = 0; i < heads.length; i += SLICE)
      await this.redis
        .eval(RAISE, 1, this.key, ...heads.slice(i, i + SLICE).flat())
        .catch((err: Error) => this.onError(err));
  }

  /** After an anchor: the streams it covers are pinned by it now. */
  /** `heads`: the anchor's, [streamId, version, hash] by stream (anchors.ts). */
  async anchored(heads: ReadonlyArray<readonly [string, number, ...unknown[]]>): Promise<void> {
    await this.settled();
    for (let i = 0; i < heads.length; i += SLICE)
      await this.redis.eval(FORGET, 1, this.key, ...heads.slice(i, i + SLICE).flatMap((h) => [h[0], h[1]]));
  }

  /** Stream → the last version witnessed, for the streams written since the last anchor. */
  async read(): Promise<Map<string, number>> {
    const all = await this.redis.hgetall(this.key);
    return new Map(Object.entries(all).map(([s, v]) => [s, Number(v)]));
  }
}
