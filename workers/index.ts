// The worker role: every BullMQ queue this build processes. The maintenance queue has its own
// schedule (maintenance.ts); the reaction queues run the handlers the modules declare (services/modules/).
import { type ConnectionOptions, UnrecoverableError, Worker, type WorkerOptions } from 'bullmq';
import type { AppServices } from '../services/app/context.js';
import { queuePrefix } from '../services/shared/queues.js';
import { redisOptions } from '../services/shared/redis.js';
import { startMaintenance } from './maintenance.js';
import type { JobHandler } from './process-manager.js';

export interface JobWorkersOptions {
  connection: ConnectionOptions;
  /** `queuePrefix(config.REDIS_PREFIX)` */
  prefix: string;
  /** Jobs run at once per queue (small: each reports back with a command). */
  concurrency?: number;
  /** Extra BullMQ worker options (tests shorten lock and stall checks). */
  worker?: Partial<WorkerOptions>;
}

/** One BullMQ worker per queue that has handlers; a job name without a handler fails for good. */
export function startJobWorkers(
  app: AppServices,
  handlers: Partial<Record<string, Record<string, JobHandler>>>,
  opts: JobWorkersOptions,
) {
  const workers: Worker[] = [];
  for (const [queue, byName] of Object.entries(handlers)) {
    if (!byName || Object.keys(byName).length === 0) continue;
    const worker = new Worker(
      queue,
      async (job, token) => {
        const handle = byName[job.name];
        if (!handle) throw new UnrecoverableError(`No handler for job ${job.name} on queue ${queue}`);
        return handle(app, job, token);
      },
      {
        connection: opts.connection,
        prefix: opts.prefix,
        concurrency: opts.concurrency ?? 2,
        // A worker that died mid-job leaves it stalled: run it again (handlers are idempotent).
        maxStalledCount: 3,
        // Failed jobs stay for the operations page (retry after a fix), within bounds.
        removeOnFail: { age: 30 * 86_400, count: 10_000 },
        removeOnComplete: { age: 7 * 86_400 },
        ...opts.worker,
      },
    );
    worker.on('failed', (job, err) =>
      app.log.error(
        { queue, job: job?.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message },
        'job failed',
      ),
    );
    // BullMQ reconnects by itself after a connection error: say so once per distinct error, not per retry.
    let lastError = '';
    worker.on('error', (err) => {
      if (err.message === lastError) return;
      lastError = err.message;
      app.log.warn({ queue, err: err.message }, 'job worker error');
    });
    worker.on('ready', () => {
      lastError = '';
    });
    workers.push(worker);
  }
  return {
    workers,
    async close(force = false) {
      await Promise.allSettled(workers.map((w) => w.close(force)));
    },
  };
}

/** The maintenance queue and every module's reaction queues (`handlers`: services/modules/index.ts). */
export async function startWorkers(
  app: AppServices,
  handlers: Partial<Record<string, Record<string, JobHandler>>>,
  schedules: ReadonlyArray<{ queue: string; name: string; every: number }> = [],
) {
  const connection = redisOptions(app.config.REDIS_URL);
  const prefix = queuePrefix(app.config.REDIS_PREFIX);
  const maintenance = await startMaintenance(app, connection, prefix, schedules);
  const reactions = startJobWorkers(app, handlers, { connection, prefix });
  return {
    async close() {
      await reactions.close();
      await maintenance.close();
    },
  };
}
