// The two retries of the operations page, and the dismissal of a parked event.
import { api } from '../../../lib/api-client';

/** POST /api/operations/queues/{queue}/jobs/{jobId}/retry: the job goes back to its queue. */
export async function retryFailedJob(queue: string, jobId: string) {
  const res = await api.post<unknown>(
    `/api/operations/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(jobId)}/retry`,
    undefined,
    { fallbackMessage: 'Failed to retry the job' },
  );
  return res.message ?? 'Job queued for another run';
}

/** POST /api/operations/parked/{consumer}/{eventId}/retry: the consumer applies the event again. */
export async function retryParkedEvent(consumer: string, eventId: string) {
  const res = await api.post<unknown>(
    `/api/operations/parked/${encodeURIComponent(consumer)}/${encodeURIComponent(eventId)}/retry`,
    undefined,
    { fallbackMessage: 'Failed to retry the event' },
  );
  return res.message ?? 'Retry requested';
}

/** POST /api/operations/parked/{consumer}/{eventId}/dismiss (ADMIN): set aside, on record, with a reason. */
export async function dismissParkedEvent(consumer: string, eventId: string, reason: string) {
  const res = await api.post<unknown>(
    `/api/operations/parked/${encodeURIComponent(consumer)}/${encodeURIComponent(eventId)}/dismiss`,
    { reason },
    { fallbackMessage: 'Failed to dismiss the event' },
  );
  return res.message ?? 'Parked event dismissed';
}
