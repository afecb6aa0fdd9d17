// The `mail` queue: one job `send` per mail, its id derived from the caller's idempotency key, so
// enqueueing the same mail again (a job that runs twice, a replayed event) is still one job. The job
// retries with exponential backoff over about three days: an SMTP outage delays mail and loses none;
// after the last try the job stays failed on the operations page, from where an operator retries it.
//
// The job data in Redis hold no address and no action link: enqueueMail seals the recipient and the
// template data with the recipient's subject key (services/mail/sealed.ts); the handler opens them
// when it sends. Sending itself is services/mail/send.ts (exactly once per key, as far as SMTP allows).
import { createHash } from 'node:crypto';
import { type Job, Queue, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { AppServices } from '../../services/app/context.js';
import { type MailRecipient, openMailPart, sealMailPart } from '../../services/mail/sealed.js';
import { MailSendError, sendMail, withoutAddresses } from '../../services/mail/send.js';
import {
  isMailTemplate,
  type MailTemplateData,
  type MailTemplateName,
  mailTemplates,
} from '../../services/mail/templates.js';
import type { Sealed } from '../../services/privacy/personal-data.js';
import { ForgottenSubjectError } from '../../services/privacy/subject-keys.js';
import { queuePrefix } from '../../services/shared/queues.js';
import type { JobHandler } from '../process-manager.js';

export const MAIL_QUEUE = 'mail';
export const MAIL_SEND_JOB = 'send';
/** Tries of one mail; with the doubling wait below they cover an outage of about 3 days. */
export const MAIL_ATTEMPTS = 18;
/** The first wait after a failed try; each next one doubles (2 s, 4 s, … about 36 h for the last). */
export const MAIL_RETRY_DELAY_MS = 2000;

/** Whom a mail goes to, as the caller knows it; sealed with `subject`'s key before it leaves memory. */
export interface MailTo extends MailRecipient {
  /** The recipient's data-key subject (`manager-7`, `user-3`): forgetting it drops the queued mail. */
  subject: string;
}

export interface EnqueueMailInput<T extends MailTemplateName> {
  /** Idempotency key: the same key is one mail, however often it is enqueued or sent. */
  key: string;
  template: T;
  to: MailTo;
  data: MailTemplateData<T>;
  /** The causing request's or event's correlation id, for the logs. */
  correlationId?: string | null;
  /** Shorter waits than the defaults (tests; a caller that must know sooner). */
  retry?: { attempts?: number; delayMs?: number };
  /** Who hears how the mail ended: see MailOutcomeReport. */
  report?: MailOutcomeReport;
}

/**
 * A job the caller's module runs when this mail fails for good (refused, or its tries used up) and
 * when it is delivered after failing: the mail module knows nothing of approvals, the caller records
 * the outcome where its users look. `data` must hold no personal field (Redis keeps it plain); the
 * job gets `{ ...data, mailJobId, outcome, reason }` (the reason without addresses).
 */
export interface MailOutcomeReport {
  queue: string;
  name: string;
  data: Record<string, string | number | boolean | null>;
}

export interface MailEnding {
  mailJobId: string;
  outcome: 'failed' | 'delivered';
  reason: string | null;
}

/** What a `send` job holds in Redis: no address, no link, no name. */
export interface MailJobData {
  key: string;
  template: MailTemplateName;
  sealed: Sealed;
  correlationId: string | null;
  report?: MailOutcomeReport;
}

const MailKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
const Recipient = z.object({
  subject: z.string().min(1).max(200),
  address: z.email().max(320),
  name: z.string().max(200).nullish(),
});

/**
 * The job id of a key. BullMQ refuses ':' in custom ids: a key of [A-Za-z0-9_-] is kept readable
 * (`mail_<key>`); any other key goes by its hash (`mail-h_<sha256>`), so two keys never share a job.
 */
export function mailJobId(key: string): string {
  if (/^[A-Za-z0-9_-]{1,180}$/.test(key)) return `mail_${key}`;
  return `mail-h_${createHash('sha256').update(key).digest('hex').slice(0, 48)}`;
}

// One Queue object per Redis client and queue: it shares the app's connection (which fails fast while
// Redis is down, so the caller's own job fails and retries) and needs no closing of its own.
const queues = new WeakMap<Redis, Map<string, Queue>>();
function queueOn(app: Pick<AppServices, 'redis' | 'config'>, name: string): Queue {
  let byName = queues.get(app.redis);
  if (!byName) {
    byName = new Map();
    queues.set(app.redis, byName);
  }
  let q = byName.get(name);
  if (!q) {
    q = new Queue(name, { connection: app.redis, prefix: queuePrefix(app.config.REDIS_PREFIX) });
    q.on('error', () => {});
    byName.set(name, q);
  }
  return q;
}
const mailQueue = (app: Pick<AppServices, 'redis' | 'config'>) => queueOn(app, MAIL_QUEUE);

const Report = z.object({
  queue: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  data: z.record(z.string(), z.union([z.string().max(200), z.number(), z.boolean(), z.null()])),
});

/**
 * Queues the caller's report of how the mail ended. Its id is the mail's job, the outcome and the
 * try: a try that runs twice (a worker lost mid-job) reports once.
 */
async function reportOutcome(
  app: AppServices,
  job: Job,
  outcome: MailEnding['outcome'],
  reason: string | null,
) {
  const report = Report.safeParse((job.data as MailJobData).report);
  if (!report.success || !job.id) return;
  const { queue, name, data } = report.data;
  const body: MailEnding = { mailJobId: job.id, outcome, reason };
  await queueOn(app, queue).add(
    name,
    { ...data, ...body },
    {
      jobId: `${job.id}_${outcome}_${job.attemptsMade}`,
      attempts: 10,
      backoff: { type: 'exponential', delay: 1000 },
    },
  );
}

/** A try's failure ends the mail: refused for good, or its last try. */
const endsTheMail = (job: Job, err: unknown) =>
  err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/**
 * Queues one mail. Checks the recipient and the data against the template's contract at once (a
 * caller's mistake fails here, not three days later), seals the personal part, and adds the job
 * unless one with the key's id is already there. 'forgotten': the recipient's subject was
 * forgotten, nothing is queued.
 */
export async function enqueueMail<T extends MailTemplateName>(
  app: Pick<AppServices, 'redis' | 'config' | 'subjectKeys' | 'log'>,
  input: EnqueueMailInput<T>,
): Promise<{ jobId: string; status: 'queued' | 'forgotten' }> {
  const key = MailKey.parse(input.key);
  const to = Recipient.parse(input.to);
  const data = mailTemplates[input.template].schema.parse(input.data);
  const jobId = mailJobId(key);
  let sealed: Sealed;
  try {
    sealed = await sealMailPart(app.subjectKeys, key, to.subject, {
      to: { address: to.address, name: to.name ?? null },
      data,
    });
  } catch (err) {
    if (!(err instanceof ForgottenSubjectError)) throw err;
    app.log.info({ mailKey: key, template: input.template }, 'mail not queued: its recipient was forgotten');
    return { jobId, status: 'forgotten' };
  }
  const job: MailJobData = {
    key,
    template: input.template,
    sealed,
    correlationId: input.correlationId ?? null,
    ...(input.report ? { report: input.report } : {}),
  };
  await mailQueue(app).add(MAIL_SEND_JOB, job, {
    jobId,
    attempts: input.retry?.attempts ?? MAIL_ATTEMPTS,
    backoff: { type: 'exponential', delay: input.retry?.delayMs ?? MAIL_RETRY_DELAY_MS },
  });
  return { jobId, status: 'queued' };
}

export const mailJobHandlers: Record<string, JobHandler> = {
  async [MAIL_SEND_JOB](app, job) {
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send(app, job);
    } catch (err) {
      if (endsTheMail(job, err)) {
        const message = withoutAddresses(err instanceof Error ? err.message : String(err)).slice(0, 300);
        const how =
          err instanceof UnrecoverableError
            ? 'the e-mail was refused for good'
            : `the e-mail could not be delivered in ${job.attemptsMade + 1} tries`;
        await reportOutcome(app, job, 'failed', `${how} (${message})`);
      }
      throw err;
    }
    if (job.attemptsMade > 0 && result.status !== 'forgotten')
      await reportOutcome(app, job, 'delivered', null);
    return result;
  },
};

/** One try of a `send` job: opens the sealed part and sends it (exactly once per key). */
async function send(app: AppServices, job: Job) {
  const { key, template, sealed } = job.data as MailJobData;
  if (!isMailTemplate(template)) throw new UnrecoverableError(`Unknown mail template ${template}`);
  const part = await openMailPart(app.subjectKeys, key, sealed);
  if (!part) {
    app.log.info({ mailKey: key, template }, 'mail dropped: its recipient was forgotten');
    return { status: 'forgotten' };
  }
  const parsed = mailTemplates[template].schema.safeParse(part.data);
  // The paths only: the values may be names.
  if (!parsed.success)
    throw new UnrecoverableError(
      `The data of mail ${key} do not fit template ${template} (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`,
    );
  try {
    return await sendMail(app, { key, template, to: part.to, data: parsed.data as never });
  } catch (err) {
    if (err instanceof MailSendError && err.permanent) throw new UnrecoverableError(err.message);
    throw err;
  }
}
