// The QuickBooks process manager (queue `quickbooks`): every connected or refreshed grant schedules
// its next refresh shortly before the access token expires (services/quickbooks/refresh-timing.ts).
// The job refreshes under the realm's lock, stores the rotated refresh token, and records the
// refresh as an event with the job's id, so a job run twice records it once. A stale job (someone
// refreshed since) does nothing: that refresh scheduled its own job. Each run also checks the refresh
// token's hard expiry and records a re-consent warning a week before it (once per grant).
import type { CompanyEvent } from '../../schema/companies/events.js';
import { decodeEvent } from '../../schema/shared/events.js';
import { refreshConnection } from '../../services/companies/quickbooks-refresh.js';
import { warnReconsentIfDue } from '../../services/companies/quickbooks-token-status.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { refreshDelayMs } from '../../services/quickbooks/refresh-timing.js';
import {
  type JobHandler,
  jobContext,
  type ProcessManager,
  type ReactionJob,
  reactionJobId,
} from '../process-manager.js';

const NAME = 'quickbooks';

/** The queue of the QuickBooks reactions (token refresh now; payment sync later). */
export const QUICKBOOKS_QUEUE = 'quickbooks';

export const quickbooksProcessManager: ProcessManager = {
  name: NAME,
  handles: ['CompanyQbConnected', 'CompanyQbTokensRefreshed'],
  // From the beginning: on a log from before this process manager, every grant gets its refresh
  // (a job for an old event finds its token refreshed since, or refreshes a stale one: both right).
  startAt: 'beginning',
  react(stored: StoredEvent): ReactionJob[] {
    const event = decodeEvent(stored) as CompanyEvent;
    if (event.type !== 'CompanyQbConnected' && event.type !== 'CompanyQbTokensRefreshed') return [];
    const delayMs = refreshDelayMs(new Date(event.data.at), new Date(event.data.accessExpiresAt));
    return [
      {
        queue: QUICKBOOKS_QUEUE,
        name: 'refresh-qb-token',
        data: {
          companyId: event.data.companyId,
          correlationId: stored.metadata.correlationId ?? null,
          causationEventId: stored.id,
        },
        jobId: reactionJobId(NAME, stored),
        ...(delayMs > 0 ? { delayMs } : {}),
      },
    ];
  },
};

export const quickbooksJobHandlers: Record<string, JobHandler> = {
  async 'refresh-qb-token'(app, job) {
    const { companyId } = job.data as { companyId: number };
    const outcome = await refreshConnection(app, companyId, jobContext(job), { force: false });
    // Intuit's refresh tokens end for good 5 years after consent: a week before, the company's card
    // says so, so that someone reconnects the company before its QuickBooks link stops working.
    const reconsentDue =
      outcome === 'refreshed' || outcome === 'not-due'
        ? await warnReconsentIfDue(app, companyId, jobContext(job))
        : false;
    return { outcome, reconsentDue };
  },
};
