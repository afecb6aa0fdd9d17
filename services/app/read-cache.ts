// Answers of read-model queries kept in memory, valid exactly as long as the read models they read
// have not changed. A projection writes its tables and moves its checkpoint in one transaction, and
// every write to its tables (a live batch, a rebuild's swap, an operator's retry of a parked event)
// stamps the checkpoint row's `updated_at`, strictly increasing: so that stamp names the state of
// the tables. The position is not part of it: a consumer moves its checkpoint over events it had
// nothing to write for (projection_advance_quiet), and those must not throw kept answers away, or
// any activity anywhere in the log would. Each read first reads those rows (one indexed query) and serves a kept answer only if
// they are what they were when the answer was computed. Never stale, then, and read-your-writes holds
// on every gateway: a mutation answers after the checkpoint moved past its events.
//
// Worth it for the lists staff keep open (the approvals list over 100,000 rows is three queries, 25
// rows parsed and shaped; a hit is one query). On a busy log the checkpoints move often and this
// simply misses.
import { LRUCache } from 'lru-cache';
import type { AppServices } from './context.js';

interface Kept {
  version: string;
  value: unknown;
}

/** Per app (a test process runs several against different databases), bounded, and short-lived. */
const caches = new WeakMap<AppServices, LRUCache<string, Kept>>();

function cacheOf(app: AppServices) {
  let cache = caches.get(app);
  if (!cache) {
    // The TTL is only a bound on memory held for queries nobody repeats; validity is the version's.
    cache = new LRUCache<string, Kept>({ max: 2000, ttl: 5 * 60_000 });
    caches.set(app, cache);
  }
  return cache;
}

/**
 * The state of the named read models (their code versions and tables' stamps), or null while one of
 * them has no checkpoint yet (a fresh store): nothing is kept on those.
 */
export async function readModelVersion(
  app: AppServices,
  projections: readonly string[],
): Promise<string | null> {
  const r = await app.pool.query<{ v: string | null; n: number }>({
    name: 'read_model_version',
    text: `SELECT string_agg(name || '@' || version || '@' || (extract(epoch FROM updated_at) * 1e6)::bigint, ','
             ORDER BY name) AS v, count(*)::int AS n
           FROM projection_checkpoints WHERE name = ANY($1::text[])`,
    values: [projections],
  });
  const row = r.rows[0];
  return row && row.n === projections.length ? row.v : null;
}

/**
 * `compute()`'s answer for `key`, reused while the read models `projections` stay as they were.
 * Callers check the caller's permission before (a kept answer carries no access decision) and treat
 * the answer as read-only: it is shared between requests.
 */
export async function readCached<T>(
  app: AppServices,
  projections: readonly string[],
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  return keptUnder(app, await readModelVersion(app, projections), key, compute);
}

/**
 * As readCached, under a version the caller read once for several kept parts of one answer (a page
 * and its total, kept apart because the total serves every page of the same filters).
 */
export async function keptUnder<T>(
  app: AppServices,
  version: string | null,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  if (version === null) return compute();
  const cache = cacheOf(app);
  const kept = cache.get(key);
  if (kept && kept.version === version) return kept.value as T;
  const value = await compute();
  // Kept under the version read before computing: if the tables moved meanwhile, the next read sees
  // a newer version and computes again; a kept answer is never older than its version.
  cache.set(key, { version, value });
  return value;
}
