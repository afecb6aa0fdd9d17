// The mail queue against the real SMTP catcher, Redis and Postgres: a mail enqueued twice arrives
// once; one whose completed job is gone from Redis is still not sent again (mail_deliveries); an
// SMTP outage delays a mail, which arrives once the server is back, once, while the operations page
// shows it waiting; Redis and the log lines never hold the recipient's address or the action link.
import { type Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../services/app/context.js';
import { messageIdFor } from '../../services/mail/send.js';
import { collectOverview } from '../../services/operations/operations.js';
import { queuePrefix } from '../../services/shared/queues.js';
import { redisOptions } from '../../services/shared/redis.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { enqueueMail, MAIL_QUEUE } from './mail.js';

const ADDRESS = 'dana.reyes@example-payer.test';
const NAME = 'Dana Reyes';
const LINK_TOKEN = 'tok_4f1c9e0b7a';
const ACTION_URL = `https://billflow.test/confirm/${LINK_TOKEN}`;
const FAST = { attempts: 30, delayMs: 150 };

let t: TestApp;
let app: AppServices;
let catcher: SmtpCatcher;
let queue: Queue;
const logLines: string[] = [];

const bankUpload = (key: string) => ({
  key,
  template: 'bank-upload-requested' as const,
  to: { subject: 'manager-9001', address: ADDRESS, name: NAME },
  data: {
    approvalId: 'ap-9001',
    companyName: 'Acme <Corp>',
    fileName: 'ACH_20250602_A.txt',
    entryCount: 2,
    totalCents: 150_000,
    effectiveDate: '2025-06-02',
    actionUrl: ACTION_URL,
  },
  retry: FAST,
});

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const completed = (jobId: string) =>
  until(`job ${jobId} completed`, async () => {
    if ((await queue.getJobState(jobId)) !== 'completed') return null;
    // Read after the state: a job read while still active has no return value yet.
    return (await queue.getJob(jobId)) as Job;
  });

/** Every value under the test's Redis prefix, as one string. */
async function redisDump(): Promise<string> {
  const r = app.redis;
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${t.env.REDIS_PREFIX}*`, 'COUNT', 500);
    cursor = next;
    for (const k of keys) {
      const type = await r.type(k);
      if (type === 'hash') out.push(k, JSON.stringify(await r.hgetall(k)));
      else if (type === 'string') out.push(k, String(await r.get(k)));
      else if (type === 'list') out.push(k, JSON.stringify(await r.lrange(k, 0, -1)));
      else if (type === 'zset') out.push(k, JSON.stringify(await r.zrange(k, 0, -1)));
      else if (type === 'set') out.push(k, JSON.stringify(await r.smembers(k)));
      else if (type === 'stream') out.push(k, JSON.stringify(await r.xrange(k, '-', '+')));
    }
  } while (cursor !== '0');
  return out.join('\n');
}

const arrivals = (c: SmtpCatcher, key: string) =>
  c.messages().filter((m) => m.messageId === messageIdFor(key, app.config.MAIL_FROM));

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({ env: { SMTP_URL: catcher.smtpUrl, PUBLIC_URL: 'https://billflow.test' } });
  app = t.started.app;
  // Keep what the product logs (workers included: they hold this object) to look for addresses.
  const log = app.log;
  const keep = (level: 'info' | 'warn' | 'error') => (obj: unknown, msg?: string) => {
    logLines.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
    log[level](obj, msg);
  };
  app.log = { info: keep('info'), warn: keep('warn'), error: keep('error') };
  queue = new Queue(MAIL_QUEUE, {
    connection: redisOptions(t.env.REDIS_URL),
    prefix: queuePrefix(t.env.REDIS_PREFIX),
  });
}, 60_000);

afterAll(async () => {
  await queue?.close();
  await t?.stop();
  await catcher?.stop();
});

describe('mail queue', () => {
  it('sends a mail enqueued twice once, with its key-derived Message-ID and both parts', async () => {
    const mail = bankUpload('bank-upload_ap-9001_v1_manager-9001');
    const [a, b] = await Promise.all([enqueueMail(app, mail), enqueueMail(app, mail)]);
    expect(a).toEqual({ jobId: 'mail_bank-upload_ap-9001_v1_manager-9001', status: 'queued' });
    expect(b.jobId).toBe(a.jobId);
    await enqueueMail(app, mail);
    const job = await completed(a.jobId);
    expect(job.returnvalue).toMatchObject({ status: 'sent' });
    const got = await catcher.waitFor((m) => m.messageId === messageIdFor(mail.key, app.config.MAIL_FROM));
    expect(got.envelope.to).toEqual([ADDRESS]);
    expect(got.subject).toBe('NACHA file ready for the bank: Acme <Corp>, $1,500.00');
    expect(got.html).toContain('Acme &lt;Corp&gt;');
    expect(got.html).toContain(`href="${ACTION_URL}"`);
    expect(got.text).toContain(`Confirm bank upload:\n${ACTION_URL}`);
    // Enqueued again after it was sent: the completed job is that one job.
    await enqueueMail(app, mail);
    await new Promise((r) => setTimeout(r, 500));
    expect(arrivals(catcher, mail.key)).toHaveLength(1);
    // One job for the three enqueues (the queue's only job so far).
    expect(await queue.getJobCounts('completed', 'waiting', 'delayed', 'active')).toMatchObject({
      completed: 1,
      waiting: 0,
      delayed: 0,
      active: 0,
    });
    const row = await app.pool.query('SELECT key, template, message_id FROM mail_deliveries WHERE key = $1', [
      mail.key,
    ]);
    expect(row.rows).toEqual([
      { key: mail.key, template: 'bank-upload-requested', message_id: got.messageId },
    ]);
  });

  it('does not send again when Redis has forgotten the completed job (mail_deliveries has the key)', async () => {
    const mail = bankUpload('bank-upload_ap-9001_v2_manager-9001');
    const { jobId } = await enqueueMail(app, mail);
    await completed(jobId);
    await catcher.waitFor((m) => m.messageId === messageIdFor(mail.key, app.config.MAIL_FROM));
    await (await queue.getJob(jobId))?.remove();
    await enqueueMail(app, mail);
    const again = await completed(jobId);
    expect(again.returnvalue).toMatchObject({ status: 'already-sent' });
    expect(arrivals(catcher, mail.key)).toHaveLength(1);
  });

  it('waits out an SMTP outage: the mail is delayed, shown on the operations page, and arrives once after', async () => {
    const port = catcher.smtpPort;
    const before = catcher;
    await catcher.stop();
    const mail = bankUpload('bank-upload_ap-9001_v3_manager-9001');
    const { jobId } = await enqueueMail(app, mail);
    // At least two tries failed, and the job waits for its next one.
    await until('a failed try', async () => {
      const job = await queue.getJob(jobId);
      return job && job.attemptsMade >= 2 && (await job.getState()) === 'delayed';
    });
    const overview = await collectOverview(app);
    const mailQueue = overview.queues.find((q) => q.name === MAIL_QUEUE);
    expect(mailQueue?.available).toBe(true);
    expect(mailQueue?.counts?.delayed).toBeGreaterThanOrEqual(1);
    expect(mailQueue?.counts?.failed).toBe(0);
    // While it waits, Redis holds the job, sealed: no address, name or link in it.
    const waiting = await redisDump();
    expect(waiting).toContain(jobId);
    expect(waiting).not.toContain(ADDRESS);
    expect(waiting).not.toContain('example-payer');
    expect(waiting).not.toContain(NAME);
    expect(waiting).not.toContain(LINK_TOKEN);

    catcher = await startSmtpCatcher({ smtpPort: port });
    const got = await catcher.waitFor(
      (m) => m.messageId === messageIdFor(mail.key, app.config.MAIL_FROM),
      15_000,
    );
    expect(got.envelope.to).toEqual([ADDRESS]);
    const job = await completed(jobId);
    expect(job.attemptsMade).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 500));
    expect(arrivals(catcher, mail.key)).toHaveLength(1);
    expect(arrivals(before, mail.key)).toHaveLength(0);
  });

  it('drops a queued mail whose recipient was forgotten, and queues none for them after', async () => {
    const mail = {
      ...bankUpload('bank-upload_ap-9002_v1_manager-9002'),
      to: {
        subject: 'manager-9002',
        address: 'forgotten.person@example-payer.test',
      },
    };
    await app.subjectKeys.getOrCreate('manager-9002');
    await queue.pause();
    const { jobId } = await enqueueMail(app, mail);
    await app.subjectKeys.forget('manager-9002');
    await queue.resume();
    const job = await completed(jobId);
    expect(job.returnvalue).toEqual({ status: 'forgotten' });
    expect(catcher.messages().some((m) => m.envelope.to.includes(mail.to.address))).toBe(false);
    expect(await enqueueMail(app, { ...mail, key: 'bank-upload_ap-9002_v2_manager-9002' })).toMatchObject({
      status: 'forgotten',
    });
  });

  it('keeps addresses and links out of Redis and of every log line', async () => {
    const dump = await redisDump();
    expect(dump).toContain('mail_bank-upload_ap-9001_v1_manager-9001');
    for (const secret of [ADDRESS, 'example-payer', NAME, LINK_TOKEN]) {
      expect(dump).not.toContain(secret);
      expect(logLines.join('\n')).not.toContain(secret);
    }
    // The log says which mail, by key and template.
    expect(logLines.join('\n')).toMatch(
      /mail sent.*bank-upload_ap-9001_v1_manager-9001.*bank-upload-requested/,
    );
    // The failed tries of the outage were logged too, without the address.
    expect(logLines.some((l) => l.includes('job failed') && l.includes('"queue":"mail"'))).toBe(true);
  });
});
