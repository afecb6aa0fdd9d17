// The `vendor-mail` process manager (queue `vendor-mail`, from the moment it is first deployed: a
// notice must not go out for years of history): a held bank detail change is told to the vendor's
// contact on record (notify-banking-change), a change its contact froze is told to every ADMIN
// (alert-banking-change-frozen), and a micro-deposit check sends the vendor its link
// (send-micro-deposit-link). Job ids derive from the event and this process manager's name, so a
// replayed event enqueues nothing twice; each job records what it did with a command whose id derives
// from the job id, and queues mails keyed by the job id (sent once by the mail queue). A vendor's
// notice or link that fails for good, or goes out after failing, comes back as `mail-ended` and is
// recorded on the vendor: staff must know when the vendor may not have heard of a change.
import type { Job } from 'bullmq';
import { z } from 'zod';
import { decodeEvent } from '../../schema/shared/events.js';
import type { VendorEvent } from '../../schema/vendors/events.js';
import type { AppServices } from '../../services/app/context.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import {
  changeNoticeMails,
  frozenAlertMails,
  microDepositLinkMails,
  type VendorMail,
} from '../../services/vendors/banking-notices.js';
import { vendorDecider } from '../../services/vendors/vendor-decider.js';
import { enqueueMail, type MailOutcomeReport } from '../mail/mail.js';
import { type JobHandler, type ProcessManager, type ReactionJob, reactionJobId } from '../process-manager.js';

const NAME = 'vendor-mail';
export const VENDOR_MAIL_QUEUE = 'vendor-mail';

export const vendorMailProcessManager: ProcessManager = {
  name: NAME,
  handles: ['VendorBankingChangeRequested', 'VendorBankingChangeFrozen', 'VendorMicroDepositsSent'],
  startAt: 'now',
  react(stored: StoredEvent): ReactionJob[] {
    // The ids are all a job needs; the sealed numbers and amounts stay unread here.
    const event = decodeEvent(stored, { sealed: 'absent' }) as VendorEvent;
    const job = (name: string, data: Record<string, unknown>): ReactionJob => ({
      queue: VENDOR_MAIL_QUEUE,
      name,
      data: {
        ...data,
        streamId: stored.streamId,
        correlationId: stored.metadata.correlationId ?? null,
        causationEventId: stored.id,
      },
      jobId: reactionJobId(NAME, stored),
    });
    switch (event.type) {
      case 'VendorBankingChangeRequested':
        // The notice and its "this was not me" link are there to catch a person redirecting the
        // vendor's money (a forged request, a colleague's account). A bank's notification of change
        // comes from the vendor's own bank, names no person to report, and goes live only by an
        // ADMIN's approval: no notice, so the vendor is not asked to disown its bank's correction.
        if (event.data.source === 'noc') return [];
        return [job('notify-banking-change', { changeId: event.data.changeId })];
      case 'VendorBankingChangeFrozen':
        return [
          job('alert-banking-change-frozen', { changeId: event.data.changeId, frozenAt: event.data.at }),
        ];
      case 'VendorMicroDepositsSent':
        return [
          job('send-micro-deposit-link', {
            changeId: event.data.changeId,
            verificationId: event.data.verificationId,
          }),
        ];
      default:
        return [];
    }
  },
};

interface JobData {
  streamId: string;
  changeId: string;
  correlationId: string | null;
  causationEventId: string;
}

const jobIdOf = (job: Job) => {
  if (!job.id) throw new Error('A vendor-mail job needs its id (its mails and link derive from it)');
  return job.id;
};

/** The job a vendor mail's ending queues here (workers/mail/mail.ts). */
export const VENDOR_MAIL_ENDED_JOB = 'mail-ended';

type VendorMailKind = 'change-notice' | 'micro-deposit-link';

async function queueAll(app: AppServices, job: Job, mails: VendorMail[], reported?: VendorMailKind) {
  const { correlationId, streamId, changeId } = job.data as JobData;
  const report: MailOutcomeReport | undefined = reported
    ? { queue: VENDOR_MAIL_QUEUE, name: VENDOR_MAIL_ENDED_JOB, data: { streamId, changeId, mail: reported } }
    : undefined;
  let queued = 0;
  for (const m of mails) {
    const r = await enqueueMail(app, {
      ...m,
      correlationId,
      ...(report ? { report } : {}),
    } as Parameters<typeof enqueueMail>[1]);
    if (r.status === 'queued') queued++;
  }
  return { mails: mails.length, queued };
}

export const vendorMailJobHandlers: Record<string, JobHandler> = {
  async 'notify-banking-change'(app, job) {
    const d = job.data as JobData;
    const mails = await changeNoticeMails(
      app,
      { streamId: d.streamId, changeId: d.changeId, jobId: jobIdOf(job) },
      // The system acts: the history shows no user for the notice.
      { causationId: d.causationEventId, correlationId: d.correlationId ?? undefined, userId: null },
    );
    return queueAll(app, job, mails, 'change-notice');
  },
  async 'alert-banking-change-frozen'(app, job) {
    const d = job.data as JobData & { frozenAt: string };
    const mails = await frozenAlertMails(app, {
      streamId: d.streamId,
      changeId: d.changeId,
      frozenAt: d.frozenAt,
      jobId: jobIdOf(job),
    });
    return queueAll(app, job, mails);
  },
  async 'send-micro-deposit-link'(app, job) {
    const d = job.data as JobData & { verificationId: string };
    const mails = await microDepositLinkMails(app, {
      streamId: d.streamId,
      changeId: d.changeId,
      verificationId: d.verificationId,
      jobId: jobIdOf(job),
    });
    return queueAll(app, job, mails, 'micro-deposit-link');
  },
  async [VENDOR_MAIL_ENDED_JOB](app, job) {
    const ended = MailEnded.parse(job.data);
    await app.commands.handle(
      vendorDecider,
      ended.streamId,
      {
        type: 'RecordBankingMailEnded',
        changeId: ended.changeId,
        mail: ended.mail,
        outcome: ended.outcome,
        reason: ended.reason,
        mailJobId: ended.mailJobId,
        now: new Date().toISOString(),
      },
      // Its id is the report job's (one per mail, outcome and try): a job run twice records once.
      { commandId: `mail-ended:${jobIdOf(job)}`, causationId: jobIdOf(job), userId: null },
    );
    return { recorded: ended.outcome };
  },
};

const MailEnded = z.object({
  streamId: z.string().regex(/^vendor-\d+-[^\s]{1,100}$/),
  changeId: z.string().min(1).max(100),
  mail: z.enum(['change-notice', 'micro-deposit-link']),
  mailJobId: z.string().min(1).max(200),
  outcome: z.enum(['failed', 'delivered']),
  reason: z.string().max(1000).nullable(),
});
