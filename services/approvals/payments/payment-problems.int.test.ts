// Payments never fail silently, end to end on Postgres, Redis, the workers, the QuickBooks simulator
// and the SMTP catcher. Each kind of failure is planted and must show on the approval (detail and
// list row), with its reason in plain words and the retry that helps:
// - a fault in the file's generation (Postgres refuses to store it): recorded once its attempts are
//   used up, the manager e-mailed, over once Regenerate goes through;
// - a rule's refusal in a job: recorded at once and not retried;
// - the day's 36 files used: the approval says it waits and the day it will be made, and that day's
//   job asks for the file again with no one acting;
// - QuickBooks refusing the bill payments after the bank paid: the list row says the books do not
//   match, and so does the "Paid" e-mail.
import { Queue, UnrecoverableError } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, signIn } from '../../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../../test/support/payments.js';
import type { QbBill, Realm } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { type SmtpCatcher, startSmtpCatcher } from '../../../tools/smtp-catcher.js';
import { newYorkDayStart, paymentsJobHandlers } from '../../../workers/approvals/payments.js';
import { achFileDay } from '../../nacha/payment-file.js';
import { FileLimitReached, takeFileIdModifier } from '../../payments/file-modifier.js';
import { queuePrefix } from '../../shared/queues.js';
import { redisOptions } from '../../shared/redis.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';

const A = '/api/bill-approval/approvals';
const MANAGER = 'mara.manager@client.test';
const qbApp = { clientId: 'billflow-problems', clientSecret: 'problems-secret-value-8080' };
let sim: QboSandbox;
let catcher: SmtpCatcher;
let t: TestApp;
let admin = '';
let adminId = 0;
let companyId = 0;
let realmId = '';
let realm: Realm;
let managerId = 0;
let open: QbBill[] = [];
const vendorIds = new Map<string, number>();

async function sql<T = Record<string, unknown>>(text: string): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text)).rows as T[];
  } finally {
    await pool.end();
  }
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 45_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const detail = async (id: string) => (await api(t.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
const listRow = async (id: string) =>
  (
    (await api(t.url, 'GET', `${A}?companyId=${companyId}&limit=100`, { token: admin })).body.data as Array<{
      id: string;
      paymentProblem: unknown;
    }>
  ).find((r) => r.id === id);

/** An approval of `n` fresh bills (each vendor given banking), made and approved. */
async function approved(n: number) {
  const bills = open.splice(0, n);
  expect(bills).toHaveLength(n);
  for (const v of new Set(bills.map((b) => b.VendorRef.value))) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(v)}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: `4400${v.padStart(7, '0')}`,
        accountType: 'checking',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const billIds = bills.map((b) => b.Id);
  const c = await api(t.url, 'POST', A, { body: { companyId, billIds, managerId }, token: admin });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token: admin });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return { id, bills };
}

const handle = (id: string, command: Parameters<typeof approvalDecider.decide>[0]) =>
  t.started.app.commands.handle(approvalDecider, approvalStreamId(id), command, { userId: String(adminId) });

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({
    env: {
      QBO_OAUTH_BASE: sim.url,
      QBO_API_BASE: sim.url,
      SMTP_URL: catcher.smtpUrl,
    },
  });
  const me = await signIn(t.url, t.admin.email, t.admin.password);
  admin = me.tokens.accessToken;
  adminId = me.user.id;
  ({ companyId, realmId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Problem Plumbing',
  }));
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
  open = realm.bills.filter((b) => b.Balance > 0 && vendorIds.has(b.VendorRef.value));
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Mara', lastName: 'Manager', email: MANAGER },
    token: admin,
  });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  managerId = m.body.data.id;
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await catcher?.stop();
  await sim?.close();
});

describe('payment problems are shown where the clerk works', () => {
  it('a generation fault is recorded once its attempts are used up, the manager e-mailed, and Regenerate ends it', async () => {
    // Postgres refuses every new stored file: a fault, not a rule.
    await sql('ALTER TABLE nacha_files ADD CONSTRAINT planted_fault CHECK (false) NOT VALID');
    let id = '';
    try {
      ({ id } = await approved(1));
      const d = await until('the failure on the approval', async () => {
        const x = await detail(id);
        return x.paymentProblem ? x : null;
      });
      expect(d.status).toBe('NACHA_PENDING');
      expect(d.paymentProblem).toMatchObject({ kind: 'job', retry: 'regenerate', queue: 'payments' });
      expect(d.paymentProblem.message).toMatch(/^Generating the NACHA file failed: .*planted_fault/);
      expect((await listRow(id))?.paymentProblem).toEqual(d.paymentProblem);
      const mail = await until('the manager’s e-mail', async () =>
        catcher
          .messages()
          .find((m) => /^Payment problem: Problem Plumbing/.test(m.subject) && (m.html ?? '').includes(id)),
      );
      expect(mail.envelope.to).toEqual([MANAGER]);
      expect(mail.text).toContain('Generating the NACHA file failed');
      // The operations page names the company and the approval of the failed job.
      const ops = await until('the failed job on the operations page', async () => {
        const o = (await api(t.url, 'GET', '/api/operations', { token: admin })).body.data;
        return o.queues
          .flatMap((q: { failedJobs: Array<{ approvalId: string | null }> }) => q.failedJobs)
          .find((j: { approvalId: string | null }) => j.approvalId === id);
      });
      expect(ops).toMatchObject({ name: 'generate-nacha', companyId, companyName: 'Problem Plumbing' });
    } finally {
      await sql('ALTER TABLE nacha_files DROP CONSTRAINT planted_fault');
    }
    const r = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: admin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = await nachaOutcome(t.url, admin, id, 2);
    expect(after.status).toBe('NACHA_GENERATED');
    expect(after.paymentProblem).toBeNull();
    // One failure on record, one e-mail about it.
    const events = (await t.started.app.store.readStream(approvalStreamId(id))).events;
    expect(events.filter((e) => e.type === 'PaymentJobFailed')).toHaveLength(1);
    expect(
      catcher.messages().filter((m) => /^Payment problem/.test(m.subject) && (m.html ?? '').includes(id)),
    ).toHaveLength(1);
  }, 90_000);

  it('a rule’s refusal in a job is recorded at once and not retried', async () => {
    const { id } = await approved(1);
    await nachaOutcome(t.url, admin, id);
    // The QuickBooks sync asked for before the payment: the decider refuses it.
    const job = {
      id: `refused-${id}`,
      name: 'start-qb-sync',
      queueName: 'payments',
      data: { approvalId: id, correlationId: null, causationEventId: `refused-${id}` },
      opts: { attempts: 5 },
      attemptsMade: 0,
    };
    await expect(paymentsJobHandlers['start-qb-sync'](t.started.app, job as never)).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
    const d = await until('the refusal on the approval', async () => {
      const x = await detail(id);
      return x.paymentProblem ? x : null;
    });
    expect(d.paymentProblem).toMatchObject({
      kind: 'job',
      retry: 'operations',
      jobId: `refused-${id}`,
      message:
        'Starting the QuickBooks payment sync failed: QuickBooks payments are made once the payment is completed',
    });
  });

  it('a QuickBooks refusal after the bank paid shows on the list row and in the "Paid" e-mail', async () => {
    const { id, bills } = await approved(1);
    expect((await nachaOutcome(t.url, admin, id)).status).toBe('NACHA_GENERATED');
    const vendorId = bills[0].VendorRef.value;
    const inactive = await fetch(`${sim.url}/__sim/vendors/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realmId, vendorId, active: false }),
    });
    expect(inactive.status).toBe(200);
    try {
      const now = () => new Date().toISOString();
      await handle(id, { type: 'MarkBankUploaded', byUserId: adminId, link: null, now: now() });
      await handle(id, { type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() });
      const d = await until('the failed sync on the approval', async () => {
        const x = await detail(id);
        return x.qbPaymentSyncStatus === 'FAILED' && x.paymentProblem ? x : null;
      });
      expect(d.paymentProblem).toMatchObject({ kind: 'quickbooks', retry: 'retry-qb-sync' });
      expect(d.paymentProblem.message).toMatch(/^Paid by the bank, not recorded in QuickBooks: /);
      expect((await listRow(id))?.paymentProblem).toEqual(d.paymentProblem);
      const paid = await until('the paid e-mail', async () =>
        catcher
          .messages()
          .find((m) => /^Paid: Problem Plumbing/.test(m.subject) && (m.html ?? '').includes(id)),
      );
      expect(paid.text).toContain('Attention: the bill payments are not recorded in QuickBooks');
    } finally {
      await fetch(`${sim.url}/__sim/vendors/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ realmId, vendorId, active: true }),
      });
    }
  }, 60_000);

  it('the day’s 36 files used: the approval says it waits and when, and that day asks for the file by itself', async () => {
    // The company's shared files so far are sealed (downloaded, as a clerk would): the next approval
    // needs a new file (decision 0040), and every modifier of the day is taken (other files, penny tests).
    const made = await sql<{ id: string }>(
      `SELECT DISTINCT data->>'approvalId' AS id FROM es_events
        WHERE event_type = 'NachaFileGenerated' AND data->>'companyId' = '${companyId}'`,
    );
    for (const { id } of made) {
      const url = (await detail(id)).nachaFileUrl;
      if (!url) continue; // its latest request made no file
      const res = await fetch(`${t.url}${url}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(res.status).toBe(200);
    }
    const day = achFileDay(new Date());
    for (let i = 0; ; i++) {
      try {
        await takeFileIdModifier(t.started.app, companyId, day, `planted-${i}`, { userId: null });
      } catch (err) {
        expect(err).toBeInstanceOf(FileLimitReached);
        break;
      }
      expect(i).toBeLessThan(36);
    }
    const { id } = await approved(1);
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status).toBe('NACHA_PENDING');
    const limit = d.nachaProblems.find((p: { kind: string }) => p.kind === 'file-limit');
    expect(limit.waitUntil).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(d.paymentProblem).toMatchObject({ kind: 'waiting', retry: null });
    expect(d.paymentProblem.message).toContain(`this file will be made on ${limit.waitUntil}`);
    // Not a fault: no job failed, none is retried; the day's job waits in the queue.
    const events = (await t.started.app.store.readStream(approvalStreamId(id))).events;
    expect(events.some((e) => e.type === 'PaymentJobFailed')).toBe(false);
    const queue = new Queue('payments', {
      connection: redisOptions(t.env.REDIS_URL),
      prefix: queuePrefix(t.env.REDIS_PREFIX),
    });
    try {
      const waiting = await until('the deferred job', async () =>
        (await queue.getDelayed()).find((j) => j.name === 'deferred-nacha' && j.data.approvalId === id),
      );
      expect(waiting.timestamp + waiting.delay).toBeGreaterThanOrEqual(
        newYorkDayStart(limit.waitUntil) - 5_000,
      );
      expect(waiting.timestamp + waiting.delay).toBeLessThanOrEqual(newYorkDayStart(limit.waitUntil) + 5_000);
      // That day comes: the job asks for the file again, with no one acting.
      await paymentsJobHandlers['deferred-nacha'](t.started.app, waiting);
      const again = await nachaOutcome(t.url, admin, id, 2);
      expect(again.nachaVersion).toBe(2);
      // Still the same New York day here, so it waits again, for the same day.
      expect(again.nachaProblems[0]).toMatchObject({ kind: 'file-limit', waitUntil: limit.waitUntil });
      // Regenerate says what will really happen: the file waits for that day.
      const r = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: admin });
      expect(r.status).toBe(200);
      expect(r.body.message).toBe(
        `The company has sent the 36 NACHA files its bank takes today: the new version will be made on ${limit.waitUntil}, with no one needing to act`,
      );
      // The same job run again changes nothing: the request it was for is no longer the latest.
      await paymentsJobHandlers['deferred-nacha'](t.started.app, waiting);
      expect((await detail(id)).nachaVersion).toBe(3);
    } finally {
      await queue.close();
    }
  }, 60_000);

  it('a company without a payment account cannot move money unseen: shown from the start, no file until it has one', async () => {
    const other = await connectedCompany({
      url: t.url,
      sim,
      token: admin,
      app: qbApp,
      name: 'Accountless Awnings',
      realmIndex: 1,
    });
    await readyToPay(t.url, admin, other.companyId, { paymentAccount: null });
    const ids = new Map((await syncVendors(t.url, admin, other.companyId)).map((v) => [v.qbVendorId, v.id]));
    const bill = other.realm.bills.find((b) => b.Balance > 0 && ids.has(b.VendorRef.value))!;
    const banking = await api(t.url, 'PUT', `/api/vendors/${ids.get(bill.VendorRef.value)}/banking`, {
      body: { routingNumber: '011000015', accountNumber: '55443322110', accountType: 'checking' },
      token: admin,
    });
    expect(banking.status).toBe(200);
    const c = await api(t.url, 'POST', A, {
      body: { companyId: other.companyId, billIds: [bill.Id], managerId },
      token: admin,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const id = c.body.data.id as string;
    // Made: the detail already says what the payment lacks.
    const made = await detail(id);
    expect(made.paymentPrerequisites).toEqual([
      expect.objectContaining({ kind: 'payment-account', blocking: true }),
    ]);
    expect(made.paymentPrerequisites[0].message).toContain('Accountless Awnings has no payment account');
    const a = await api(t.url, 'PUT', `${A}/${id}/approve`, {
      body: { approvedBills: [bill.Id] },
      token: admin,
    });
    expect(a.status).toBe(200);
    // No file: it waits, named, on the list row too.
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status).toBe('NACHA_PENDING');
    expect(d.nachaProblems).toEqual([expect.objectContaining({ kind: 'company-settings' })]);
    expect(d.paymentProblem).toMatchObject({ kind: 'nacha', retry: 'regenerate' });
    const rows = (await api(t.url, 'GET', `${A}?companyId=${other.companyId}`, { token: admin })).body.data;
    expect(rows.find((r: { id: string }) => r.id === id).paymentProblem.message).toContain(
      'has no payment account',
    );
    // An account chosen, whose balance QuickBooks shows below zero: the file is made, the balance flagged.
    const bank = other.realm.accounts.find((x) => x.AccountType === 'Bank' && x.Active)!;
    await fetch(`${sim.url}/__sim/accounts/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realmId: other.realmId, accountId: bank.Id, balance: -1250.5 }),
    });
    await readyToPay(t.url, admin, other.companyId, { paymentAccount: bank.Id });
    expect((await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: admin })).status).toBe(200);
    const after = await nachaOutcome(t.url, admin, id, 2);
    expect(after.status).toBe('NACHA_GENERATED');
    expect(after.paymentProblem).toBeNull();
    expect(after.paymentPrerequisites).toEqual([
      expect.objectContaining({ kind: 'account-balance', blocking: false }),
    ]);
    expect(after.paymentPrerequisites[0].message).toContain('-$1,250.50');
  }, 60_000);
});
