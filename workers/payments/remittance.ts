// The `remittance` process manager (queue `remittance`, from its first deployment: history must not
// mail vendors): a file that went to the bank (BankUploadConfirmed, the system's SFTP delivery or a
// person's confirmation) queues one job that mails each vendor of that file version its remittance
// advice (services/payments/remittance.ts). The job id derives from the event and each mail's key
// from the approval, file version and vendor, so a replayed event or a job run again sends nothing
// twice. The job data hold ids only; the addresses travel sealed in the mail queue's jobs.
import { approvalEvents } from '../../schema/approvals/events.js';
import { remittancePlan } from '../../services/payments/remittance.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { enqueueMail } from '../mail/mail.js';
import { type JobHandler, type ProcessManager, reactionJobId } from '../process-manager.js';

export const REMITTANCE_QUEUE = 'remittance';
export const REMITTANCE_JOB = 'send-remittance';

const decode = eventDecoder(approvalEvents);

export const remittanceProcessManager: ProcessManager = {
  name: 'remittance',
  handles: ['BankUploadConfirmed'],
  startAt: 'now',
  react(stored) {
    const event = decode(stored, { sealed: 'absent' });
    if (event.type !== 'BankUploadConfirmed') return [];
    return [
      {
        queue: REMITTANCE_QUEUE,
        name: REMITTANCE_JOB,
        jobId: reactionJobId('remittance', stored),
        data: {
          approvalId: event.data.approvalId,
          fileVersion: event.data.fileVersion,
          correlationId: stored.metadata.correlationId ?? null,
          causationEventId: stored.id,
        },
      },
    ];
  },
};

export const remittanceJobHandlers: Record<string, JobHandler> = {
  async [REMITTANCE_JOB](app, job) {
    const {
      approvalId,
      fileVersion,
      correlationId = null,
    } = job.data as {
      approvalId: string;
      fileVersion: number;
      correlationId?: string | null;
    };
    const plan = await remittancePlan(app, approvalId, fileVersion);
    let queued = 0;
    let forgotten = 0;
    for (const mail of plan.mails) {
      const r = await enqueueMail(app, { ...mail, correlationId });
      if (r.status === 'queued') queued++;
      else forgotten++;
    }
    return {
      vendors: plan.mails.length + plan.withoutEmail + plan.turnedOff + plan.gone,
      queued,
      forgotten: forgotten + plan.gone,
      withoutEmail: plan.withoutEmail,
      turnedOff: plan.turnedOff,
    };
  },
};
