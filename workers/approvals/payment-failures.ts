// A payment job that ends in failure never leaves its approval in a calm or in-progress state: its
// failure for good (a business rule's refusal at once, a fault once its attempts are used up, a bug)
// is recorded on the approval (PaymentJobFailed, with its reason in plain words), which the list row,
// the badge, the detail and the dashboard show and the manager is e-mailed about. A refusal is not
// retried as if it were a fault: it fails the job at once (UnrecoverableError). When the same job
// later goes through (retried from the operations page), the problem is closed (PaymentJobRecovered).
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { PaymentJob } from '../../schema/approvals/payment-events.js';
import type { AppServices } from '../../services/app/context.js';
import { approvalDecider, approvalStreamId } from '../../services/approvals/approval-decider.js';
import { DomainError } from '../../services/shared/domain-errors.js';
import { AppError } from '../../services/shared/errors.js';
import { MAIL_QUEUE } from '../mail/mail.js';
import type { JobHandler } from '../process-manager.js';

/** A rule's refusal (a 4xx of the app): retrying it changes nothing. */
export function isRefusal(err: unknown): boolean {
  if (err instanceof DomainError) return true;
  return err instanceof AppError && err.status >= 400 && err.status < 500 && err.code !== 'RATE_LIMITED';
}

/** The reason as staff read it: the rule's own words, or the fault's message without a stack. */
export function failureReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const text = message.replace(/\s+/g, ' ').trim() || 'an unexpected error';
  return text.length > 500 ? `${text.slice(0, 497)}…` : text;
}

const reportContext = (job: Job, part: string) => ({
  commandId: `${part}:${job.queueName}:${job.id}`,
  causationId: (job.data as { causationEventId?: string }).causationEventId ?? String(job.id),
  correlationId: (job.data as { correlationId?: string | null }).correlationId ?? undefined,
  userId: null,
});

async function record(
  app: AppServices,
  job: Job,
  command: Parameters<typeof approvalDecider.decide>[0],
  part: string,
) {
  const approvalId = (job.data as { approvalId?: unknown }).approvalId;
  if (typeof approvalId !== 'string') return;
  try {
    await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      command,
      reportContext(job, part),
    );
  } catch (err) {
    // The job's own outcome stands; the report is logged for the operations page.
    app.log.error(
      { jobId: job.id, queue: job.queueName, err: failureReason(err) },
      'payment job outcome not recorded',
    );
  }
}

/** The job a payment mail's ending queues on the payment-mail queue (workers/mail/mail.ts). */
export const MAIL_ENDED_JOB = 'mail-ended';

const MailEnded = z.object({
  approvalId: z.string().min(1).max(100),
  job: PaymentJob,
  mailJobId: z.string().min(1).max(200),
  outcome: z.enum(['failed', 'delivered']),
  reason: z.string().max(1000).nullable(),
});

/**
 * A mail of the payment path failed for good (refused, or its tries used up), or went out after:
 * recorded on the approval as the failure, or the recovery, of the job that queued it, with the mail
 * job's id, so that the operations page's retry of that mail is the retry the approval offers.
 */
export const mailEndedHandler: JobHandler = async (app, job) => {
  const ended = MailEnded.parse(job.data);
  if (ended.outcome === 'failed')
    await recordOrThrow(
      app,
      job,
      ended.approvalId,
      {
        type: 'RecordPaymentJobFailed',
        job: ended.job,
        jobId: ended.mailJobId,
        queue: MAIL_QUEUE,
        reason: ended.reason ?? 'the e-mail was not delivered',
        now: new Date().toISOString(),
      },
      'mail-failed',
    );
  else
    await recordOrThrow(
      app,
      job,
      ended.approvalId,
      { type: 'RecordPaymentJobRecovered', jobId: ended.mailJobId, now: new Date().toISOString() },
      'mail-delivered',
    );
  return { recorded: ended.outcome };
};

/** As record, but a report that cannot be made fails its job, which BullMQ tries again. */
async function recordOrThrow(
  app: AppServices,
  job: Job,
  approvalId: string,
  command: Parameters<typeof approvalDecider.decide>[0],
  part: string,
) {
  await app.commands.handle(approvalDecider, approvalStreamId(approvalId), command, reportContext(job, part));
}

/** Each handler reports its failure for good on the approval, and its recovery after one. */
export function reportingFailures(handlers: Record<string, JobHandler>): Record<string, JobHandler> {
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handle]): [string, JobHandler] => {
      const job = PaymentJob.safeParse(name);
      if (!job.success) return [name, handle];
      return [
        name,
        async (app, j, token) => {
          let result: unknown;
          try {
            result = await handle(app, j, token);
          } catch (err) {
            if (err instanceof DelayedError) throw err;
            const refusal = isRefusal(err);
            const last =
              refusal || err instanceof UnrecoverableError || j.attemptsMade + 1 >= (j.opts.attempts ?? 1);
            if (last)
              await record(
                app,
                j,
                {
                  type: 'RecordPaymentJobFailed',
                  job: job.data,
                  jobId: String(j.id),
                  queue: j.queueName,
                  reason: failureReason(err),
                  now: new Date().toISOString(),
                },
                'failed',
              );
            if (refusal) throw new UnrecoverableError(failureReason(err));
            throw err;
          }
          // A job that failed before (its attempts, or for good and retried by an operator).
          if (j.attemptsMade > 0)
            await record(
              app,
              j,
              { type: 'RecordPaymentJobRecovered', jobId: String(j.id), now: new Date().toISOString() },
              `recovered-${j.attemptsMade}`,
            );
          return result;
        },
      ];
    }),
  );
}
