// Process managers: reactions to events, run on the log like projections (checkpointed, one active
// runner each) but turning events into BullMQ jobs instead of rows. A job's id derives from the
// event, so a replayed event (crash before the checkpoint moved) enqueues nothing twice; the
// checkpoint moves only after the enqueue succeeded, so Redis being down delays reactions and
// never loses them. Jobs are idempotent and report back by issuing commands (their own events).
import type { Job } from 'bullmq';
import type { CommandContext } from '../services/app/command-handler.js';
import type { AppServices } from '../services/app/context.js';
import type { StoredEvent } from '../services/eventstore/port.js';

/** A job a process manager asks for in reaction to one event. */
export interface ReactionJob {
  /** BullMQ queue name: a key of its module's `jobHandlers`. */
  queue: string;
  /** Job name within the queue: the handler switches on it. */
  name: string;
  /** JSON only; ids, not personal data (the job reads what it needs). */
  data: Record<string, unknown>;
  /** Deterministic, from the event: use reactionJobId(). */
  jobId: string;
  /** Run later (expiry, stale-claim checks): a BullMQ delayed job. */
  delayMs?: number;
}

export interface ProcessManager {
  /** Unique, stable. Its checkpoint is the row `pm:<name>` in projection_checkpoints. */
  name: string;
  /** Event types it reacts to; the others still move its checkpoint. */
  handles: readonly string[];
  /** Pure: the jobs this event calls for (none is fine). */
  react(event: StoredEvent): ReactionJob[];
  /** Where it starts the first time it runs: 'beginning' (default) or 'now'. */
  startAt?: ProcessManagerStart;
}

/** `pm:<name>`: the checkpoint and parking key of a process manager. */
export const consumerName = (pm: Pick<ProcessManager, 'name'>) => `pm:${pm.name}`;

/** One id per (process manager, event, n-th job of that event): the same on every replay. */
export function reactionJobId(pm: string, event: Pick<StoredEvent, 'id'>, n = 0): string {
  // BullMQ refuses ':' in custom ids; keep to [A-Za-z0-9_-].
  return `${pm}_${event.id}_${n}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * Optional, per process manager: where a new one starts the first time it runs. 'beginning' (the
 * default) reacts to the whole log; 'now' only to events after its first start (a reaction such as
 * an e-mail must not fire for years of history when the process manager is added to a running
 * deployment).
 */
export type ProcessManagerStart = 'beginning' | 'now';

/**
 * Runs one job of a queue. Must be idempotent: a job can run again (a worker died after its effect,
 * Redis lost the completion). Report the outcome as a command whose id is the job id
 * (`jobContext(job)`), so the event store appends it once however often the job runs.
 */
/** `token`: the worker's lock on the job, for handlers that move their job (e.g. `moveToDelayed`). */
export type JobHandler = (app: AppServices, job: Job, token?: string) => Promise<unknown>;

/** Handlers per queue, per job name. */
export type JobHandlers = Record<string, Record<string, JobHandler>>;

/**
 * The context of the commands a job issues: the system acts (the history shows 'System'), caused by
 * the event that enqueued the job and in that event's request (the reaction's `causationEventId` and
 * `correlationId` data; the job id stands in for a job enqueued without them). The command id is the
 * job id, so a job that runs again appends nothing twice.
 *
 * `{ jobCommandId: false }` leaves the command id to the service the job calls. The users flows need
 * that: an address's release takes its id from the claim event, the same whether the request or the
 * job frees it (whoever comes first appends the one release), and an admin observation needs none.
 */
export function jobContext(
  job: Job,
  { jobCommandId = true }: { jobCommandId?: boolean } = {},
): CommandContext {
  const { correlationId, causationEventId } = job.data as {
    correlationId?: string | null;
    causationEventId?: string;
  };
  return {
    ...(jobCommandId ? { commandId: job.id } : {}),
    causationId: causationEventId ?? job.id,
    correlationId: correlationId ?? undefined,
    userId: null,
  };
}
