// Remittance advice, end to end on Postgres, Redis, the workers, the QuickBooks simulator and a real
// SMTP server: an approval pays three vendors (one with two bills), one of them without an e-mail in
// QuickBooks and one whose advice staff turned off; staff confirm the bank upload with a reason. The
// vendor with an e-mail and the advice on gets exactly one advice, with the payer, the amount, the
// effective date, each bill's document number and what the file paid for it, the account's last four
// digits and the entry's trace, never the account number; the job run again sends nothing more; the
// vendor turned off gets none, and the setting is on its history with who changed it.
import { type Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../test/support/payments.js';
import type { QbBill, QbVendor, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { MAIL_QUEUE, mailJobId } from '../../workers/mail/mail.js';
import {
  REMITTANCE_QUEUE,
  remittanceJobHandlers,
  remittanceProcessManager,
} from '../../workers/payments/remittance.js';
import { formatUsd } from '../mail/format.js';
import { queuePrefix } from '../shared/queues.js';
import { remittanceKey } from './remittance.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-remittance', clientSecret: 'remittance-secret-4242' };
const PASSWORD = 'Moderator-pass-123!';
/** The accounts of the mailed vendor, the one turned off, and the one without an e-mail. */
const ACCOUNTS = ['7100000003', '7100000101', '7100000777'];

let sim: QboSandbox;
let catcher: SmtpCatcher;
let t: TestApp;
let admin = '';
let moderator = '';
let companyId = 0;
let realm: Realm;
let approvalId = '';
/** The mailed vendor's two bills, the turned-off vendor's bill, the bill of the vendor without e-mail. */
let mailedBills: QbBill[] = [];
let offBill: QbBill;
let silentBill: QbBill;
let mailedVendor: QbVendor;
let offVendorId = 0;
const queues: Queue[] = [];

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const queue = (name: string) => {
  const q = new Queue(name, {
    connection: t.started.app.redis,
    prefix: queuePrefix(t.started.app.config.REDIS_PREFIX),
  });
  queues.push(q);
  return q;
};
const remittanceMails = () =>
  catcher.messages().filter((m) => /^Payment from /.test(m.subject) && m.subject.includes('Rattan'));
const storedOf = async (id: string) => (await t.started.app.store.readStream(`approval-${id}`)).events;

/** A job as the worker hands it to a handler, from the process manager's reaction. */
const asJob = (r: { jobId: string; name: string; queue: string; data: Record<string, unknown> }) =>
  ({ id: r.jobId, name: r.name, queueName: r.queue, data: r.data }) as unknown as Job;

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    body: { email: 'mo@remittance.test', password: PASSWORD, role: 'MODERATOR', firstName: 'Mo' },
    token: admin,
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  moderator = (await signIn(t.url, 'mo@remittance.test', PASSWORD)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Remitting Rattan',
  }));
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  // The vendors' e-mails are QuickBooks' (PrimaryEmailAddr; every eleventh vendor has none).
  const open = new Map<string, QbBill[]>();
  const active = new Map(realm.vendors.filter((v) => v.Active).map((v) => [v.Id, v]));
  for (const b of realm.bills)
    if (b.Balance > 0 && active.has(b.VendorRef.value))
      open.set(b.VendorRef.value, [...(open.get(b.VendorRef.value) ?? []), b]);
  const hasEmail = (bills: QbBill[]) => Boolean(active.get(bills[0].VendorRef.value)?.PrimaryEmailAddr);
  const withEmail = [...open.values()].filter(hasEmail).sort((x, y) => y.length - x.length);
  mailedBills = withEmail[0].slice(0, 2);
  offBill = withEmail[1][0];
  silentBill = [...open.values()].find((bills) => !hasEmail(bills))![0];
  expect(mailedBills).toHaveLength(2);
  mailedVendor = active.get(mailedBills[0].VendorRef.value)!;
  const offVendor = active.get(offBill.VendorRef.value)!;
  const synced = await syncVendors(t.url, admin, companyId);
  const vendorIds = new Map(synced.map((v) => [v.qbVendorId, v.id]));
  offVendorId = vendorIds.get(offVendor.Id)!;
  for (const [bill, account] of [
    [mailedBills[0], ACCOUNTS[0]],
    [offBill, ACCOUNTS[1]],
    [silentBill, ACCOUNTS[2]],
  ] as const) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(bill.VendorRef.value)}/banking`, {
      body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  for (const q of queues) await q.close();
  await t?.stop();
  await catcher?.stop();
  await sim?.close();
});

describe('remittance advice', () => {
  it('is turned off per vendor by staff, on record in the vendor’s history', async () => {
    const before = (await api(t.url, 'GET', `/api/vendors/${offVendorId}`, { token: moderator })).body.data;
    expect(before.remittanceAdvice).toBe(true);
    const off = await api(t.url, 'PUT', `/api/vendors/${offVendorId}/remittance-advice`, {
      body: { enabled: false },
      token: moderator,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.remittanceAdvice).toBe(false);
    // The same setting again records nothing more.
    const again = await api(t.url, 'PUT', `/api/vendors/${offVendorId}/remittance-advice`, {
      body: { enabled: false },
      token: admin,
    });
    expect(again.status).toBe(200);
    const history = (await api(t.url, 'GET', `/api/vendors/${offVendorId}/history`, { token: admin })).body
      .data as Array<{ action: string; userName: string | null; details: string | null }>;
    const turnedOff = history.filter((h) => h.action === 'Remittance advice turned off');
    expect(turnedOff).toHaveLength(1);
    expect(turnedOff[0].userName).toMatch(/^Mo\b/);
    const bad = await api(t.url, 'PUT', `/api/vendors/${offVendorId}/remittance-advice`, {
      body: { enabled: 'maybe' },
      token: admin,
    });
    expect(bad.status).toBe(400);
  });

  it('mails each vendor with an e-mail and the advice on exactly once when its file goes to the bank', async () => {
    const billIds = [...mailedBills, offBill, silentBill].map((b) => b.Id);
    const c = await api(t.url, 'POST', A, {
      body: { companyId, billIds, recipients: ['ap@remittance.test'] },
      token: admin,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    approvalId = c.body.data.id;
    const a = await api(t.url, 'PUT', `${A}/${approvalId}/approve`, {
      body: { approvedBills: billIds },
      token: admin,
    });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = await nachaOutcome(t.url, admin, approvalId);
    expect(d.status, JSON.stringify(d.nachaProblems)).toBe('NACHA_GENERATED');
    // No advice before the bank has the file.
    expect(remittanceMails()).toHaveLength(0);
    const up = await api(t.url, 'POST', `${A}/${approvalId}/confirm-step`, {
      body: { action: 'bank-uploaded', reason: 'The bank portal shows the file accepted' },
      token: admin,
    });
    expect(up.status, JSON.stringify(up.body)).toBe(200);

    // The job's outcome: one queued, one turned off, one without an e-mail.
    const confirmed = (await storedOf(approvalId)).find((e) => e.type === 'BankUploadConfirmed')!;
    const [reaction] = remittanceProcessManager.react(confirmed);
    const job = await until('the remittance job done', async () => {
      const j = await queue(REMITTANCE_QUEUE).getJob(reaction.jobId);
      return j?.finishedOn ? j : null;
    });
    expect(job.returnvalue).toEqual({
      vendors: 3,
      queued: 1,
      forgotten: 0,
      withoutEmail: 1,
      turnedOff: 1,
    });
    const key = remittanceKey(approvalId, 1, mailedVendor.Id);
    await until('the advice sent', async () => {
      const j = await queue(MAIL_QUEUE).getJob(mailJobId(key));
      return j?.finishedOn ? j : null;
    });
    const mails = remittanceMails();
    expect(mails).toHaveLength(1);
    const [m] = mails;
    expect(m.envelope.to).toEqual([mailedVendor.PrimaryEmailAddr!.Address.toLowerCase()]);

    // What the file paid per bill, as the approval's file recorded it.
    const file = (await storedOf(approvalId)).find((e) => e.type === 'NachaFileGenerated')!.data as {
      effectiveDate: string;
      vendors: Array<{
        qbVendorId: string;
        amountCents: number;
        traceNumber: string;
        bills: Array<{ billId: string; amountCents: number }>;
      }>;
    };
    const paid = file.vendors.find((v) => v.qbVendorId === mailedVendor.Id)!;
    expect(paid.bills).toHaveLength(2);
    expect(m.subject).toContain(`Payment from Remitting Rattan: ${formatUsd(paid.amountCents)}`);
    for (const b of paid.bills) {
      const bill = mailedBills.find((x) => x.Id === b.billId)!;
      expect(m.text).toContain(`Bill ${bill.DocNumber || bill.Id}: ${formatUsd(b.amountCents)}`);
    }
    expect(m.text).toContain(`ending ${ACCOUNTS[0].slice(-4)}`);
    expect(m.text).toContain(paid.traceNumber);
    expect(`${m.text}${m.html}`).not.toContain(ACCOUNTS[0]);
    const delivered = await t.started.app.pool.query(
      `SELECT key FROM mail_deliveries WHERE template = 'remittance-advice' AND key LIKE $1`,
      [`remittance_${approvalId}%`],
    );
    expect(delivered.rows.map((r) => r.key)).toEqual([key]);
  });

  it('sends nothing more when the job runs again', async () => {
    const confirmed = (await storedOf(approvalId)).find((e) => e.type === 'BankUploadConfirmed')!;
    const [reaction] = remittanceProcessManager.react(confirmed);
    const key = remittanceKey(approvalId, 1, mailedVendor.Id);
    // The mail queue has forgotten the sent job (as after its retention): the key alone must hold.
    await (await queue(MAIL_QUEUE).getJob(mailJobId(key)))!.remove();
    const r = await remittanceJobHandlers[reaction.name](t.started.app, asJob(reaction));
    expect(r).toMatchObject({ queued: 1, turnedOff: 1, withoutEmail: 1 });
    const again = await until('the advice’s mail job done again', async () => {
      const j = await queue(MAIL_QUEUE).getJob(mailJobId(key));
      return j?.finishedOn ? j : null;
    });
    expect(again.returnvalue).toMatchObject({ status: 'already-sent' });
    expect(remittanceMails()).toHaveLength(1);
    const delivered = await t.started.app.pool.query(`SELECT key FROM mail_deliveries WHERE key LIKE $1`, [
      `remittance_${approvalId}%`,
    ]);
    expect(delivered.rows).toHaveLength(1);
  });
});
