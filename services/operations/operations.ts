// The operations page (ADMIN): BullMQ queues with their failed jobs, every consumer of the log
// (projections and process managers) with its checkpoint, lag and parked events, the transaction
// that holds the log back, if any, and unusual patterns in bank detail changes (banking-patterns.ts). Operators retry failed jobs and parked events from here, and an
// ADMIN may dismiss a parked event (on record, with a reason).
import { Queue } from 'bullmq';
import { z } from 'zod';
import type {
  DismissedParkedEvent,
  FailedJob,
  JobCounts,
  LogConsumer,
  LogHolder,
  OperationsOverview,
  ParkedEvent as ParkedEventAnswer,
  QueueOverview,
} from '../../schema/operations/answers.js';
import { plainText } from '../../schema/shared/text-rules.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import {
  dismissParked,
  isDismissed,
  listParked,
  type ParkedEvent,
  parkedCounts,
  requestRetry,
} from '../consumers/parked.js';
import { AppError, parseInput } from '../shared/errors.js';
import { queuePrefix } from '../shared/queues.js';
import { redisOptions } from '../shared/redis.js';
import { bankingPatterns } from './banking-patterns.js';

// The answers are written once in schema/operations/answers.ts; these names stay for their users.
export type { FailedJob, JobCounts, LogHolder, OperationsOverview, QueueOverview };
export type ParkedEventView = ParkedEventAnswer;
/** A parked event an ADMIN set aside: kept on record, no longer counted as parked. */
export type DismissedEventView = DismissedParkedEvent;
export type ConsumerOverview = LogConsumer;

export const FAILED_JOBS_SHOWN = 20;
/** Anything may sit in a failure reason (a driver's message with values in it): keep it short. */
const REASON_MAX = 300;

/** The approval a job acts for: its own data's, or (a mail) the approval its outcome is reported to. */
function approvalOf(data: unknown): string | null {
  const d = data as { approvalId?: unknown; report?: { data?: { approvalId?: unknown } } } | null;
  const id = d?.approvalId ?? d?.report?.data?.approvalId;
  return typeof id === 'string' ? id : null;
}
const QUERY_MAX = 200;
/** How long the page waits on Redis before calling a queue unavailable. */
const REDIS_WAIT_MS = 1500;

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// BullMQ Queue objects, one per queue name per process, opened on first use. They fail fast while
// Redis is away (no offline queue, one retry per command) instead of waiting for its return.
const queuesByApp = new WeakMap<AppServices, Map<string, Queue>>();

function queueOf(app: AppServices, name: string): Queue {
  let queues = queuesByApp.get(app);
  if (!queues) {
    queues = new Map();
    queuesByApp.set(app, queues);
  }
  let queue = queues.get(name);
  if (!queue) {
    queue = new Queue(name, {
      prefix: queuePrefix(app.config.REDIS_PREFIX),
      connection: {
        ...redisOptions(app.config.REDIS_URL),
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        connectTimeout: REDIS_WAIT_MS,
        retryStrategy: (times: number) => Math.min(times * 500, 5000),
      },
    });
    // An unhandled 'error' event would throw; the outage itself shows on the page and in health.
    queue.on('error', () => {});
    queues.set(name, queue);
  }
  return queue;
}

/** Closes this process's queue objects (on shutdown). */
export async function closeOperationsQueues(app: AppServices) {
  const queues = queuesByApp.get(app);
  if (!queues) return;
  queuesByApp.delete(app);
  await Promise.all(
    [...queues.values()].map((q) => within(REDIS_WAIT_MS, q.close()).catch(() => q.disconnect())),
  );
}

async function queueOverview(app: AppServices, name: string): Promise<QueueOverview> {
  const queue = queueOf(app, name);
  try {
    const [counts, failed] = await within(
      REDIS_WAIT_MS,
      Promise.all([
        queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'paused'),
        queue.getFailed(0, FAILED_JOBS_SHOWN - 1),
      ]),
    );
    return {
      name,
      available: true,
      counts: {
        waiting: counts.waiting ?? 0,
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
        completed: counts.completed ?? 0,
        paused: counts.paused ?? 0,
      },
      // Job data stays out: only what an operator needs to decide on a retry.
      failedJobs: failed
        .filter((job) => job?.id !== undefined)
        .map((job) => ({
          id: String(job.id),
          name: job.name,
          failedReason: truncate(job.failedReason ?? '', REASON_MAX),
          attemptsMade: job.attemptsMade,
          failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
          approvalId: approvalOf(job.data),
          companyId: Number.isSafeInteger(job.data?.companyId) ? (job.data.companyId as number) : null,
          companyName: null,
        })),
    };
  } catch {
    return { name, available: false, counts: null, failedJobs: [] };
  }
}

/** Postgres error 42P01: the table is not there yet (no runner has started since the upgrade). */
const missingTable = (err: unknown) => (err as { code?: string }).code === '42P01';

export interface ConsumerPosition {
  name: string;
  position: string;
  updatedAt: Date;
  /** Age of the oldest committed event not applied yet; 0 when caught up. */
  lagSeconds: number;
}

/**
 * Where every consumer of the log stands (projections and process managers alike, from their
 * checkpoint rows). Shared with /metrics. Works with either event store adapter.
 */
export async function consumerPositions(app: AppServices): Promise<ConsumerPosition[]> {
  let rows: Array<{ name: string; position: string; updated_at: Date }>;
  try {
    rows = (
      await app.pool.query('SELECT name, position, updated_at FROM projection_checkpoints ORDER BY name')
    ).rows;
  } catch (err) {
    if (missingTable(err)) return []; // no projector has started yet: nothing to report
    throw err;
  }
  const now = Date.now();
  return Promise.all(
    rows.map(async ({ name, position, updated_at }) => {
      const [next] = await app.store.readAll(position, 1);
      return {
        name,
        position,
        updatedAt: updated_at,
        lagSeconds: next ? Math.max(0, (now - next.createdAt.getTime()) / 1000) : 0,
      };
    }),
  );
}

async function parkedEvents(app: AppServices): Promise<ParkedEvent[]> {
  try {
    return await listParked(app.db);
  } catch (err) {
    if (missingTable(err)) return [];
    throw err;
  }
}

/** Parked events of every consumer; null when the database did not answer. */
export async function parkedEventCount(app: AppServices): Promise<number | null> {
  try {
    const counts = await parkedCounts(app.db);
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } catch (err) {
    return missingTable(err) ? 0 : null;
  }
}

/** The transaction holding back the log, when the event store can name one (Postgres adapter). */
export async function currentLogHolder(app: AppServices): Promise<LogHolder | null> {
  // The adapter under the personal-data layer (services/privacy) answers this; only Postgres has one.
  const store = ('inner' in app.store ? app.store.inner : app.store) as {
    logHolder?: () => Promise<LogHolder | null>;
  };
  if (typeof store.logHolder !== 'function') return null;
  const holder = await store.logHolder();
  if (!holder) return null;
  return {
    pid: holder.pid,
    ageSeconds: Math.round(holder.ageSeconds * 10) / 10,
    // The statement's text may carry literal values: a short head is enough to find the session.
    query: truncate(String(holder.query ?? ''), QUERY_MAX),
    state: String(holder.state ?? ''),
  };
}

/** What the detailed health adds from here, bounded in time like its other checks. */
export async function logHealth(
  app: AppServices,
): Promise<{ parkedEvents: number | null; logHolder: LogHolder | null }> {
  const [parkedEvents, logHolder] = await Promise.all([
    within(2000, parkedEventCount(app)).catch(() => null),
    within(2000, currentLogHolder(app)).catch(() => null),
  ]);
  return { parkedEvents, logHolder };
}

const toView = (p: ParkedEvent): ParkedEventView => ({
  eventId: p.eventId,
  eventType: p.eventType,
  position: p.position,
  streamId: p.streamId,
  error: p.error,
  attempts: p.attempts,
  parkedAt: p.parkedAt.toISOString(),
  retryRequested: p.retryRequestedAt !== null,
});

/** Who dismissed each event, by name from the users read model (`User #id` once the user is gone). */
async function dismissers(app: AppServices, parked: ParkedEvent[]): Promise<Map<number, string>> {
  const ids = [...new Set(parked.map((p) => p.dismissedBy).filter((id): id is number => id !== null))];
  const names = new Map<number, string>();
  if (ids.length === 0) return names;
  const rows = await app.db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('id', 'in', ids)
    .execute();
  for (const u of rows)
    names.set(u.id, [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email || `User #${u.id}`);
  return names;
}

const toDismissedView = (p: ParkedEvent, names: Map<number, string>): DismissedEventView => ({
  eventId: p.eventId,
  eventType: p.eventType,
  position: p.position,
  streamId: p.streamId,
  error: p.error,
  attempts: p.attempts,
  parkedAt: p.parkedAt.toISOString(),
  dismissedAt: (p.dismissedAt as Date).toISOString(),
  dismissedBy:
    p.dismissedBy === null
      ? null
      : { id: p.dismissedBy, name: names.get(p.dismissedBy) ?? `User #${p.dismissedBy}` },
  reason: p.dismissReason ?? '',
});

async function redisUp(app: AppServices): Promise<boolean> {
  // A client that is not connected would queue the ping until Redis returns: it is down now.
  if (app.redis.status !== 'ready') return false;
  try {
    await within(REDIS_WAIT_MS, app.redis.ping());
    return true;
  } catch {
    return false;
  }
}

/** Each failed job's approval's company and the company's name, from the read models (one query each). */
async function nameFailedJobs(app: AppServices, queues: QueueOverview[]) {
  const jobs = queues.flatMap((q) => q.failedJobs);
  const approvalIds = [...new Set(jobs.flatMap((j) => (j.approvalId ? [j.approvalId] : [])))];
  try {
    if (approvalIds.length > 0) {
      const rows = await app.db
        .selectFrom('approvals')
        .select(['id', 'company_id'])
        .where('id', 'in', approvalIds)
        .execute();
      const companyOf = new Map(rows.map((r) => [r.id, r.company_id]));
      for (const j of jobs)
        if (j.approvalId && j.companyId === null) j.companyId = companyOf.get(j.approvalId) ?? null;
    }
    const companyIds = [...new Set(jobs.flatMap((j) => (j.companyId !== null ? [j.companyId] : [])))];
    if (companyIds.length === 0) return;
    const names = new Map(
      (
        await app.db.selectFrom('companies').select(['id', 'name']).where('id', 'in', companyIds).execute()
      ).map((c) => [c.id, c.name]),
    );
    for (const j of jobs) if (j.companyId !== null) j.companyName = names.get(j.companyId) ?? null;
  } catch (err) {
    // The page still answers with the queues when a read model is away.
    app.log.warn({ err: (err as Error).message }, 'failed jobs not named');
  }
}

/** The overview without the permission check: the live feed computes it once for all subscribers. */
export async function collectOverview(app: AppServices): Promise<OperationsOverview> {
  const up = await redisUp(app);
  const [queues, positions, parked, logHolder, patterns] = await Promise.all([
    up
      ? Promise.all(app.queueNames.map((name) => queueOverview(app, name)))
      : app.queueNames.map((name) => ({ name, available: false, counts: null, failedJobs: [] })),
    consumerPositions(app),
    parkedEvents(app),
    currentLogHolder(app).catch(() => null),
    bankingPatterns(app),
  ]);
  await nameFailedJobs(app, queues);
  // Every consumer that has a checkpoint, a parked event, or is a known projection not started yet.
  const byName = new Map<string, ConsumerOverview>();
  const consumer = (name: string) => {
    let c = byName.get(name);
    if (!c) {
      c = {
        name,
        kind: name.startsWith('pm:') ? 'process-manager' : 'projection',
        checkpoint: null,
        lagSeconds: null,
        updatedAt: null,
        parked: [],
        dismissed: [],
      };
      byName.set(name, c);
    }
    return c;
  };
  for (const name of app.projectionNames) consumer(name);
  for (const pos of positions) {
    const c = consumer(pos.name);
    c.checkpoint = pos.position;
    c.lagSeconds = Math.round(pos.lagSeconds * 10) / 10;
    c.updatedAt = pos.updatedAt.toISOString();
  }
  const names = await dismissers(app, parked);
  for (const p of parked) {
    if (p.dismissedAt === null) consumer(p.consumer).parked.push(toView(p));
    else consumer(p.consumer).dismissed.push(toDismissedView(p, names));
  }
  for (const c of byName.values()) c.dismissed.sort((a, b) => b.dismissedAt.localeCompare(a.dismissedAt));
  const consumers = [...byName.values()].sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name),
  );
  return {
    generatedAt: new Date().toISOString(),
    redis: up ? 'up' : 'down',
    queues,
    consumers,
    logHolder,
    bankingPatterns: patterns,
  };
}

export async function operationsOverview(app: AppServices, actor: Actor | null) {
  authorize(actor, 'operations.read');
  return collectOverview(app);
}

const RetryJobInput = z.object({
  queue: z.string().min(1).max(100),
  jobId: z.string().min(1, 'jobId is required').max(200),
});

/** Moves a failed job back to its queue's waiting list: a worker runs it again. */
export async function retryFailedJob(
  app: AppServices,
  actor: Actor | null,
  queueName: string,
  jobId: string,
) {
  authorize(actor, 'operations.write');
  const input = parseInput(RetryJobInput, { queue: queueName, jobId });
  if (!app.queueNames.includes(input.queue))
    throw new AppError('NOT_FOUND', `Queue ${input.queue} not found`);
  const queue = queueOf(app, input.queue);
  const unavailable = () =>
    new AppError('UNAVAILABLE', 'The job queue cannot be reached (Redis did not answer). Try again shortly.');
  const job = await within(REDIS_WAIT_MS, queue.getJob(input.jobId)).catch(() => {
    throw unavailable();
  });
  if (!job) throw new AppError('NOT_FOUND', 'Job not found');
  const state = await within(REDIS_WAIT_MS, job.getState()).catch(() => {
    throw unavailable();
  });
  if (state !== 'failed') throw new AppError('CONFLICT', `The job is not failed (it is ${state})`);
  try {
    await within(REDIS_WAIT_MS, job.retry('failed'));
  } catch (err) {
    // Another operator (or gateway) retried it first.
    if (/not in the failed state|Missing key/i.test(String((err as Error).message)))
      throw new AppError('CONFLICT', 'The job is no longer failed');
    throw unavailable();
  }
  return { queue: input.queue, jobId: input.jobId };
}

const RetryParkedInput = z.object({
  // A projection's or process manager's name ('users', 'pm:vendors'): a NUL byte reached Postgres
  // as it was and answered 500 (found by the fuzz test).
  consumer: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w:.-]+$/, 'consumer must be the name of a projection or process manager'),
  eventId: z.uuid('eventId must be a UUID'),
});

const DISMISS_REASON_REQUIRED = 'Please give a reason for dismissing the event';
const DismissParkedInput = RetryParkedInput.extend({
  reason: plainText(500, DISMISS_REASON_REQUIRED).pipe(z.string().min(1, DISMISS_REASON_REQUIRED)),
});

const DISMISSED = 'This parked event was dismissed: it stays on record and is not retried';

/** Asks the consumer's active runner to apply a parked event again (after a fix). */
export async function retryParkedEvent(
  app: AppServices,
  actor: Actor | null,
  consumer: string,
  eventId: string,
) {
  authorize(actor, 'operations.write');
  const input = parseInput(RetryParkedInput, { consumer, eventId });
  let found: boolean;
  try {
    found = await requestRetry(app.db, input.consumer, input.eventId);
  } catch (err) {
    if (missingTable(err)) found = false;
    else throw err;
  }
  if (!found) {
    if (await isDismissed(app.db, input.consumer, input.eventId).catch(() => false))
      throw new AppError('CONFLICT', DISMISSED);
    throw new AppError('NOT_FOUND', 'Parked event not found');
  }
  return { consumer: input.consumer, eventId: input.eventId };
}

/**
 * Sets a parked event aside (ADMIN): it no longer counts as parked (health, metrics, the page's
 * count) and is never retried, and it stays listed with who dismissed it, when and why.
 */
export async function dismissParkedEvent(
  app: AppServices,
  actor: Actor | null,
  consumer: string,
  eventId: string,
  body: unknown,
) {
  authorize(actor, 'operations.write');
  const fields = body && typeof body === 'object' ? body : {};
  const input = parseInput(DismissParkedInput, { ...fields, consumer, eventId });
  let outcome: Awaited<ReturnType<typeof dismissParked>>;
  try {
    outcome = await dismissParked(app.db, input.consumer, input.eventId, actor.id, input.reason);
  } catch (err) {
    if (missingTable(err)) outcome = 'not found';
    else throw err;
  }
  if (outcome === 'not found') throw new AppError('NOT_FOUND', 'Parked event not found');
  if (outcome === 'already dismissed')
    throw new AppError('CONFLICT', 'This parked event was already dismissed');
  app.log.info(
    { consumer: input.consumer, eventId: input.eventId, userId: actor.id },
    'parked event dismissed by an operator',
  );
  return { consumer: input.consumer, eventId: input.eventId, reason: input.reason };
}
