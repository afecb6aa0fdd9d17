// The approvals process manager (queue `approvals`): what an approval's request starts and must see
// through even when that request dies half-way (a crash between two appends):
// - expire-approval: each ApprovalCreated schedules one BullMQ delayed job at its `expiresAt`; the
//   job sends ExpireApproval, a no-op once the approval left PENDING. No sweep over the table.
// - release-bills: an approval rejected, expired, deleted, or approved without some of its bills
//   frees them on the company's `approvalbills` stream. The request does it at once; this makes sure
//   of it after a crash in between (the release decider appends nothing for bills already free).
// - check-claim: a claim whose approval was never created (the request died between the two
//   appends) is freed 5 minutes later.
// Every job id derives from its event; each job reports back with commands whose id is the job id.
import { approvalBillsEvents, approvalEvents } from '../../schema/approvals/events.js';
import { approvalDecider, approvalStreamId } from '../../services/approvals/approval-decider.js';
import { approvalBillsDecider } from '../../services/approvals/bills-decider.js';
import { expireApproval } from '../../services/approvals/delete.js';
import { releaseFor } from '../../services/approvals/release.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import {
  type JobHandler,
  jobContext,
  type ProcessManager,
  type ReactionJob,
  reactionJobId,
} from '../process-manager.js';

const NAME = 'approvals';
/** What it handles: an approval's events and its company's bill claims. */
const decodeHandledEvent = eventDecoder({ ...approvalEvents, ...approvalBillsEvents });
export const APPROVALS_QUEUE = 'approvals';

/** Longer than any create in progress: a claim older than this without its approval was abandoned. */
export const ABANDONED_CLAIM_MS = 5 * 60_000;

export const approvalsProcessManager: ProcessManager = {
  name: NAME,
  handles: [
    'ApprovalCreated',
    'ApprovalApproved',
    'ApprovalRejected',
    'ApprovalExpired',
    'ApprovalDeleted',
    'ApprovalBillsClaimed',
  ],
  // From the beginning: every PENDING approval gets its expiry (a job for one long closed does nothing).
  startAt: 'beginning',
  react(stored: StoredEvent): ReactionJob[] {
    const event = decodeHandledEvent(stored);
    const job = (name: string, data: Record<string, unknown>, delayMs = 0): ReactionJob => ({
      queue: APPROVALS_QUEUE,
      name,
      data: { ...data, correlationId: stored.metadata.correlationId ?? null, causationEventId: stored.id },
      jobId: reactionJobId(NAME, stored),
      ...(delayMs > 0 ? { delayMs } : {}),
    });
    switch (event.type) {
      case 'ApprovalCreated':
        return [
          job(
            'expire-approval',
            { approvalId: event.data.approvalId },
            new Date(event.data.expiresAt).getTime() - Date.now(),
          ),
        ];
      case 'ApprovalApproved':
      case 'ApprovalRejected':
      case 'ApprovalExpired':
      case 'ApprovalDeleted':
        return [job('release-bills', { approvalId: event.data.approvalId })];
      case 'ApprovalBillsClaimed':
        return [
          job(
            'check-claim',
            {
              approvalId: event.data.approvalId,
              companyId: event.data.companyId,
              billIds: event.data.bills.map((b) => b.billId),
            },
            ABANDONED_CLAIM_MS - (Date.now() - new Date(event.data.at).getTime()),
          ),
        ];
      default:
        return [];
    }
  },
};

export const approvalsJobHandlers: Record<string, JobHandler> = {
  async 'expire-approval'(app, job) {
    const { approvalId } = job.data as { approvalId: string };
    return expireApproval(app, approvalId, jobContext(job));
  },
  async 'release-bills'(app, job) {
    const { approvalId } = job.data as { approvalId: string };
    const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
    const r = await releaseFor(app, approvalId, state, jobContext(job));
    return r ? r.events.length : 0;
  },
  async 'check-claim'(app, job) {
    const { approvalId, companyId, billIds } = job.data as {
      approvalId: string;
      companyId: number;
      billIds: string[];
    };
    const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
    if (state.exists) return 'held';
    const r = await app.commands.handle(
      approvalBillsDecider,
      approvalBillsDecider.streamId(companyId),
      {
        type: 'ReleaseBills',
        companyId,
        releases: [{ approvalId, billIds }],
        reason: 'abandoned',
        now: new Date().toISOString(),
      },
      jobContext(job),
    );
    return r.events.length > 0 ? 'released' : 'free';
  },
};
