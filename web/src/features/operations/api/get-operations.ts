// GET /api/operations (ADMIN): queues, consumers of the log, and what holds the log back.
import { api } from '../../../lib/api-client';

export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  paused: number;
}

export interface FailedJob {
  id: string;
  name: string;
  failedReason: string;
  attemptsMade: number;
  failedAt: string | null;
}

export interface QueueOverview {
  name: string;
  available: boolean;
  counts: JobCounts | null;
  failedJobs: FailedJob[];
}

export interface ParkedEvent {
  eventId: string;
  eventType: string;
  position: string;
  streamId: string;
  error: string;
  attempts: number;
  parkedAt: string;
  retryRequested: boolean;
}

/** A parked event an ADMIN set aside: kept on record, no longer counted as parked. */
export interface DismissedEvent {
  eventId: string;
  eventType: string;
  position: string;
  streamId: string;
  error: string;
  attempts: number;
  parkedAt: string;
  dismissedAt: string;
  dismissedBy: { id: number; name: string } | null;
  reason: string;
}

export type ConsumerKind = 'projection' | 'process-manager';

export interface LogConsumer {
  name: string;
  kind: ConsumerKind;
  checkpoint: string | null;
  lagSeconds: number | null;
  updatedAt: string | null;
  /** Parked and not dismissed. */
  parked: ParkedEvent[];
  /** Newest first. */
  dismissed: DismissedEvent[];
}

export interface LogHolder {
  pid: number;
  ageSeconds: number;
  query: string;
  state: string;
}

export interface OperationsOverview {
  generatedAt: string;
  redis: 'up' | 'down';
  queues: QueueOverview[];
  consumers: LogConsumer[];
  logHolder: LogHolder | null;
}

export const OPERATIONS_FALLBACK_MESSAGE = 'Failed to load the operations overview';

export async function getOperations(signal?: AbortSignal): Promise<OperationsOverview> {
  const res = await api.get<OperationsOverview>('/api/operations', {
    signal,
    fallbackMessage: OPERATIONS_FALLBACK_MESSAGE,
  });
  if (!res.data) throw new Error(OPERATIONS_FALLBACK_MESSAGE);
  return res.data;
}
