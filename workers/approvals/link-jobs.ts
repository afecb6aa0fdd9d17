// Jobs of the 'payment-mail' process manager (payments.ts): notify-manager, send-links,
// notify-completed, notify-payment-problem, notify-returned. Each is idempotent: the links it issues are commands whose ids derive from the
// job id (appended once), and the mails it queues are keyed by the job id and the recipient's place
// (sent once by the mail queue, whatever runs twice). The job data hold ids only; addresses and
// action links travel sealed in the mail queue's jobs.
import { DelayedError, type Job } from 'bullmq';
import type { LinkAction } from '../../schema/approvals/payment-events.js';
import type { AppServices } from '../../services/app/context.js';
import { approvalDecider, approvalStreamId } from '../../services/approvals/approval-decider.js';
import {
  completedMails,
  linkMails,
  managerMail,
  type PlannedMail,
  paymentProblemMail,
  returnedMails,
} from '../../services/approvals/payments/notify.js';
import { enqueueMail } from '../mail/mail.js';
import { type JobHandler, jobContext } from '../process-manager.js';
import { MAIL_ENDED_JOB } from './payment-failures.js';

/** How long the paid notice waits for the QuickBooks record, and how often it looks. */
export const QB_OUTCOME_WAIT_MS = 5 * 60_000;
const QB_OUTCOME_POLL_MS = 2_000;

const jobIdOf = (job: Job) => {
  if (!job.id) throw new Error('A payment-mail job needs its id (the mails and links derive from it)');
  return job.id;
};

async function queueAll(app: AppServices, job: Job, mails: PlannedMail[]) {
  const { correlationId = null, approvalId } = job.data as {
    correlationId?: string | null;
    approvalId: string;
  };
  // A mail that fails for good is this job's failure on the approval (payment-failures.ts).
  const report = { queue: job.queueName, name: MAIL_ENDED_JOB, data: { approvalId, job: job.name } };
  let queued = 0;
  for (const m of mails) {
    const r = await enqueueMail(app, { ...m, correlationId, report } as Parameters<typeof enqueueMail>[1]);
    if (r.status === 'queued') queued++;
  }
  return { mails: mails.length, queued };
}

export const linkJobHandlers: Record<string, JobHandler> = {
  async 'notify-manager'(app, job) {
    const { approvalId } = job.data as { approvalId: string };
    return queueAll(app, job, await managerMail(app, approvalId, jobIdOf(job)));
  },
  async 'send-links'(app, job) {
    const { approvalId, action, fileVersion } = job.data as {
      approvalId: string;
      action: LinkAction;
      fileVersion?: number;
    };
    const mails = await linkMails(
      app,
      { approvalId, action, fileVersion, jobId: jobIdOf(job) },
      jobContext(job),
    );
    return queueAll(app, job, mails);
  },
  async 'notify-completed'(app, job, token) {
    const { approvalId } = job.data as { approvalId: string };
    // The paid notice says whether the books match the bank: it waits for the first QuickBooks run
    // to end (seconds), at most QB_OUTCOME_WAIT_MS; past that it says the record is still being made.
    const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
    const sync = state.payment.qbSync.status;
    const running = sync === 'PENDING' || sync === 'SYNCING';
    if (running && token && Date.now() - job.timestamp < QB_OUTCOME_WAIT_MS) {
      await job.moveToDelayed(Date.now() + QB_OUTCOME_POLL_MS, token);
      throw new DelayedError();
    }
    return queueAll(app, job, await completedMails(app, approvalId, jobIdOf(job)));
  },
  async 'notify-payment-problem'(app, job) {
    const { approvalId, failedJobId } = job.data as { approvalId: string; failedJobId: string };
    return queueAll(app, job, await paymentProblemMail(app, approvalId, failedJobId, jobIdOf(job)));
  },
  async 'notify-returned'(app, job) {
    const { approvalId, traceNumber } = job.data as { approvalId: string; traceNumber: string };
    return queueAll(app, job, await returnedMails(app, approvalId, traceNumber, jobIdOf(job)));
  },
};
