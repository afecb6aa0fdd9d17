// What the operations module answers: the operations page (queues, consumers of the log, what holds
// the log back) and health. The application's answer types are z.infer of these
// (services/app/operations.ts, health.ts).
import { z } from 'zod';

export const JobCounts = z.object({
  waiting: z.number().int(),
  active: z.number().int(),
  delayed: z.number().int(),
  failed: z.number().int(),
  completed: z.number().int(),
  paused: z.number().int(),
});
export type JobCounts = z.infer<typeof JobCounts>;

/** A failed job as an operator sees it: job data is never shown, the reason is shortened. */
export const FailedJob = z.object({
  id: z.string(),
  name: z.string(),
  failedReason: z.string(),
  attemptsMade: z.number().int(),
  failedAt: z.iso.datetime().nullable(),
  /** What the job was about, so an operator reaches the approval it holds up (ids and a name only). */
  approvalId: z.string().nullable(),
  companyId: z.number().int().nullable(),
  companyName: z.string().nullable(),
});
export type FailedJob = z.infer<typeof FailedJob>;

export const QueueOverview = z.object({
  name: z.string(),
  /** False when Redis did not answer in time: counts are null and failedJobs empty. */
  available: z.boolean(),
  counts: JobCounts.nullable(),
  /** Newest first, at most FAILED_JOBS_SHOWN. */
  failedJobs: z.array(FailedJob),
});
export type QueueOverview = z.infer<typeof QueueOverview>;

export const ParkedEvent = z.object({
  eventId: z.string(),
  eventType: z.string(),
  position: z.string(),
  streamId: z.string(),
  error: z.string(),
  attempts: z.number().int(),
  parkedAt: z.iso.datetime(),
  retryRequested: z.boolean(),
});
export type ParkedEvent = z.infer<typeof ParkedEvent>;

export const ParkedEventDismisser = z.object({ id: z.number().int(), name: z.string() });

/** A parked event an ADMIN set aside: kept on record, no longer counted as parked. */
export const DismissedParkedEvent = ParkedEvent.omit({ retryRequested: true }).extend({
  dismissedAt: z.iso.datetime(),
  dismissedBy: ParkedEventDismisser.nullable(),
  reason: z.string(),
});
export type DismissedParkedEvent = z.infer<typeof DismissedParkedEvent>;

export const ConsumerKind = z.enum(['projection', 'process-manager']);

/** A projection or process manager reading the event log. */
export const LogConsumer = z.object({
  name: z.string(),
  kind: ConsumerKind,
  /** Null before the consumer's first start. */
  checkpoint: z.string().nullable(),
  lagSeconds: z.number().nullable(),
  updatedAt: z.iso.datetime().nullable(),
  parked: z.array(ParkedEvent).describe('Parked and not dismissed'),
  dismissed: z.array(DismissedParkedEvent).describe('Set aside by an ADMIN, on record; newest first'),
});
export type LogConsumer = z.infer<typeof LogConsumer>;

export const LogHolder = z
  .object({ pid: z.number().int(), ageSeconds: z.number(), query: z.string(), state: z.string() })
  .describe('The open transaction that holds the event log back');
export type LogHolder = z.infer<typeof LogHolder>;

/** One user changed the bank details of more vendors in an hour than the threshold. */
export const RapidBankingChanges = z.object({
  userId: z.number().int(),
  userName: z.string(),
  from: z.iso.datetime().describe('The first change of the burst'),
  to: z.iso.datetime().describe('The last change of the burst'),
  vendorCount: z.number().int().describe('Vendors changed within one hour, at the most'),
  changeCount: z.number().int().describe('Changes in the whole burst'),
  vendors: z.array(z.string()).describe('Some of the vendors’ names (at most 10)'),
  companyIds: z.array(z.number().int()),
});
export type RapidBankingChanges = z.infer<typeof RapidBankingChanges>;

/** A vendor's bank details went live and a payment file paid the vendor within a day after. */
export const ChangedThenPaid = z.object({
  changeId: z.string(),
  vendorId: z.number().int(),
  vendorName: z.string().nullable(),
  companyId: z.number().int(),
  companyName: z.string().nullable(),
  changedById: z.number().int().nullable(),
  changedByName: z.string().nullable(),
  changedAt: z.iso.datetime(),
  liveAt: z.iso.datetime(),
  verifiedBy: z.string().nullable().describe('second-person, micro-deposits or control-off'),
  accountNumber: z.string().nullable().describe('The new account, masked'),
  approvalId: z.string(),
  fileVersion: z.number().int(),
  paidAt: z.iso.datetime().describe('When the file paying the vendor was made'),
  bankUploadedAt: z.iso.datetime().nullable().describe('When the approval’s file reached the bank'),
  paidAccountNumber: z.string().nullable().describe('The account the file paid, masked'),
  amount: z.number().describe('USD'),
});
export type ChangedThenPaid = z.infer<typeof ChangedThenPaid>;

/**
 * Unusual patterns in bank detail changes over the last `lookbackDays`: one user changing more than
 * `rapidChangeThreshold` vendors' banking within an hour, and a change followed by a payment to the
 * vendor within `paymentWithinHours`.
 */
export const BankingPatterns = z.object({
  lookbackDays: z.number().int(),
  rapidChangeThreshold: z.number().int().describe('K: more vendors than this within an hour, by one user'),
  paymentWithinHours: z.number().int(),
  rapidChanges: z.array(RapidBankingChanges).describe('Newest first'),
  changedThenPaid: z.array(ChangedThenPaid).describe('Newest first, at most 50'),
});
export type BankingPatterns = z.infer<typeof BankingPatterns>;

export const OperationsOverview = z.object({
  generatedAt: z.iso.datetime(),
  redis: z.enum(['up', 'down']),
  queues: z.array(QueueOverview),
  consumers: z.array(LogConsumer),
  logHolder: LogHolder.nullable(),
  bankingPatterns: BankingPatterns.nullable().describe('Null when the read models could not be read'),
});
export type OperationsOverview = z.infer<typeof OperationsOverview>;

export const RetriedJob = z.object({ queue: z.string(), jobId: z.string() });
export const RetriedParkedEvent = z.object({ consumer: z.string(), eventId: z.uuid() });
export const DismissedParked = RetriedParkedEvent.extend({ reason: z.string() });

// --- health ---------------------------------------------------------------------------------------

const Connection = z.enum(['connected', 'disconnected']);

/** For load balancers: ready while Postgres answers; Redis being down only degrades the service. */
export const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  degraded: z.boolean().describe('Ready, but running without Redis'),
  database: Connection,
  redis: Connection,
});
export type Readiness = z.infer<typeof Readiness>;

export const Liveness = z.object({ status: z.literal('ok') });

export const Usage = z.object({ used: z.number(), total: z.number(), percentage: z.number() });
export type Usage = z.infer<typeof Usage>;

export const ServiceStatus = z.object({ status: Connection, responseTime: z.number().nullable() });

/** System health: status, uptime, version, database, api, memory and disk. */
export const SystemHealth = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  /** Seconds. */
  uptime: z.number().int(),
  version: z.string(),
  timestamp: z.iso.datetime(),
  database: ServiceStatus,
  redis: ServiceStatus,
  api: z.object({ status: z.literal('operational'), responseTime: z.number() }),
  memory: Usage,
  disk: Usage,
  /** Events projections and process managers set aside (operations page); null when unknown. */
  parkedEvents: z.number().int().nullable(),
  /** The open transaction that holds the event log back, if any. */
  logHolder: LogHolder.nullable(),
});
export type SystemHealth = z.infer<typeof SystemHealth>;
