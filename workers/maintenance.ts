// The maintenance queue: housekeeping that runs on a schedule in whichever worker picks it up.
// BullMQ's job scheduler gives each repeat a deterministic id, so several workers never run the same
// tick twice.
import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import type { AppServices } from '../services/app/context.js';

export const MAINTENANCE_QUEUE = 'maintenance';

export async function startMaintenance(app: AppServices, connection: ConnectionOptions, prefix: string) {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  await queue.upsertJobScheduler(
    'purge-refresh-tokens',
    { every: 60 * 60 * 1000 },
    { name: 'purge-refresh-tokens' },
  );
  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      if (job.name === 'purge-refresh-tokens') return { purged: await app.refreshTokens.purgeExpired() };
      throw new Error(`Unknown maintenance job ${job.name}`);
    },
    { connection, prefix, concurrency: 1 },
  );
  worker.on('failed', (job, err) =>
    app.log.error({ job: job?.name, err: err.message }, 'maintenance job failed'),
  );
  return {
    queue,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
