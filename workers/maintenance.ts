// The maintenance queue: housekeeping that runs on a schedule in whichever worker picks it up.
// BullMQ's job scheduler gives each repeat a deterministic id, so several workers never run the same
// tick twice.
import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import type { AppServices } from '../services/app/context.js';
import { purgeIdempotencyKeys } from '../services/app/idempotency-purge.js';
import { writeAnchors } from '../services/eventstore/anchors.js';
import { PersonalDataStore } from '../services/privacy/personal-data.js';

export const MAINTENANCE_QUEUE = 'maintenance';

const HOUR = 60 * 60 * 1000;
/**
 * A credential no user's row names is kept this long: one just written may not show in the users
 * read model yet (or the read model is being rebuilt), and a week is far beyond either.
 */
const CREDENTIAL_KEEP_MS = 7 * 24 * HOUR;
const SCHEDULES = [
  { name: 'purge-refresh-tokens', every: HOUR },
  // Stored first answers to Idempotency-Keys may hold personal data: kept 24 h, no longer.
  { name: 'purge-idempotency-keys', every: HOUR },
  // Tamper evidence: an anchor over the log's new events (services/eventstore/anchors.ts).
  { name: 'anchor-log', every: 60_000 },
  // Replaced password hashes, and rows a crash left before their event (services/auth/credentials.ts).
  { name: 'purge-credentials', every: HOUR },
] as const;

export async function startMaintenance(
  app: AppServices,
  connection: ConnectionOptions,
  prefix: string,
  /** The modules' repeating jobs, on their own queues (services/modules/index.ts `schedules`). */
  moduleSchedules: ReadonlyArray<{ queue: string; name: string; every: number }> = [],
) {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  // The Redis monitor (services/shared/redis.ts) already says once that Redis is down: no line per retry.
  queue.on('error', () => {});
  const moduleQueues = new Map<string, Queue>();
  for (const { queue: name } of moduleSchedules)
    if (!moduleQueues.has(name)) {
      const q = new Queue(name, { connection, prefix });
      q.on('error', () => {});
      moduleQueues.set(name, q);
    }
  // Scheduling waits for Redis; a worker started while Redis is down must still finish starting
  // (and stop on SIGTERM), so the schedules are set in the background, retried until they land.
  let closed = false;
  const schedule = (async () => {
    for (let delay = 500; !closed; delay = Math.min(delay * 2, 10_000)) {
      try {
        for (const { name, every } of SCHEDULES) await queue.upsertJobScheduler(name, { every }, { name });
        for (const s of moduleSchedules)
          await moduleQueues.get(s.queue)!.upsertJobScheduler(s.name, { every: s.every }, { name: s.name });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  })();
  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      if (job.name === 'purge-refresh-tokens') return { purged: await app.refreshTokens.purgeExpired() };
      if (job.name === 'purge-idempotency-keys') return { purged: await purgeIdempotencyKeys(app.pool) };
      if (job.name === 'purge-credentials')
        return { purged: await app.credentials.purgeUnused(CREDENTIAL_KEEP_MS) };
      if (job.name === 'anchor-log') {
        // The raw log: anchors need hashes, not opened personal fields.
        const store = app.store instanceof PersonalDataStore ? app.store.inner : app.store;
        return { anchors: (await writeAnchors(app.pool, store, { witness: app.tailWitness })).length };
      }
      throw new Error(`Unknown maintenance job ${job.name}`);
    },
    { connection, prefix, concurrency: 1 },
  );
  worker.on('failed', (job, err) =>
    app.log.error({ job: job?.name, err: err.message }, 'maintenance job failed'),
  );
  worker.on('error', () => {});
  return {
    queue,
    /** Resolves once the schedules are set (tests wait for it). */
    scheduled: schedule,
    async close() {
      closed = true;
      await worker.close();
      await queue.close();
      await Promise.all([...moduleQueues.values()].map((q) => q.close()));
    },
  };
}
