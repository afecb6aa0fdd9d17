// The two retries of the operations page.
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
