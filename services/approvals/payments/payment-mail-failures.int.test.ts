// A mail of the payment path that fails for good is a payment problem like any other, end to end on
// Postgres, Redis, the workers and a real SMTP server that refuses one address (550 at RCPT TO): the
// approval, its list row and the dashboard show it with its reason (no address in it, nor in any
// event), the manager's notice of it failing too does not hide it, and the operations retry that the
// approval offers delivers the mail and ends the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, signIn } from '../../../test/support/http.js';
import { connectedCompany, readyToPay, syncVendors } from '../../../test/support/payments.js';
import { refusingSmtp } from '../../../test/support/refusing-smtp.js';
import type { QbBill, Realm } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { approvalStreamId } from '../approval-decider.js';

const A = '/api/bill-approval/approvals';
const BOUNCING = 'bounce.manager@client-mail.test';
const qbApp = { clientId: 'billflow-mail-failures', clientSecret: 'mail-failures-secret-4242' };

let sim: QboSandbox;
let smtp: ReturnType<typeof refusingSmtp>;
let t: TestApp;
let admin = '';
let companyId = 0;
let realm: Realm;
let managerId = 0;
let bill: QbBill;

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

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  smtp = refusingSmtp();
  smtp.refused.add(BOUNCING);
  const port = await smtp.listen();
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: `smtp://127.0.0.1:${port}` },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Bounce Bakery',
  }));
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  const vendors = new Set((await syncVendors(t.url, admin, companyId)).map((v) => v.qbVendorId));
  bill = realm.bills.find((b) => b.Balance > 0 && vendors.has(b.VendorRef.value))!;
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Bea', lastName: 'Bounce', email: BOUNCING },
    token: admin,
  });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  managerId = m.body.data.id;
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await smtp?.close();
  await sim?.close();
});

describe('a payment mail that fails for good', () => {
  it('shows on the approval, its row and the dashboard, keeps addresses out, and the retry it offers ends it', async () => {
    const c = await api(t.url, 'POST', A, {
      body: { companyId, billIds: [bill.Id], managerId },
      token: admin,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const id = c.body.data.id as string;

    // The new approval's mail to its manager is refused: recorded on the approval.
    const d = await until('the refused mail on the approval', async () => {
      const x = await detail(id);
      return x.paymentProblem ? x : null;
    });
    expect(d.paymentProblem).toMatchObject({ kind: 'job', retry: 'operations', queue: 'mail' });
    expect(d.paymentProblem.message).toMatch(
      /^E-mailing the manager of the new approval failed: the e-mail was refused for good \(.*550/,
    );
    expect(d.paymentProblem.message).not.toContain('bounce.manager');
    const row = (
      await api(t.url, 'GET', `${A}?companyId=${companyId}&problem=any`, { token: admin })
    ).body.data.find((r: { id: string }) => r.id === id);
    expect(row?.paymentProblem).toEqual(d.paymentProblem);
    const stats = (await api(t.url, 'GET', '/api/dashboard/stats', { token: admin })).body.data;
    expect(stats.paymentsNeedingAttention).toBeGreaterThanOrEqual(1);

    // The manager's notice of the problem goes to the same refused address and fails too: it is
    // left on the operations page and does not replace the problem it was about.
    const jobs = async (name: string) => {
      const o = (await api(t.url, 'GET', '/api/operations', { token: admin })).body.data;
      return o.queues.flatMap(
        (q: { name: string; failedJobs: Array<{ id: string; approvalId: string | null }> }) =>
          q.name === name ? q.failedJobs : [],
      );
    };
    const failedMails = await until('the notice’s mail failed too', async () => {
      const found = await jobs('mail');
      return found.length >= 2 ? found : null;
    });
    // The operations page names the approval and company of each failed mail.
    expect(failedMails).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: d.paymentProblem.jobId, approvalId: id, companyId }),
      ]),
    );
    const history = (await t.started.app.store.readStream(approvalStreamId(id))).events;
    expect(history.filter((e) => e.type === 'PaymentJobFailed')).toHaveLength(1);
    expect((await detail(id)).paymentProblem).toEqual(d.paymentProblem);
    // No address in any event of the approval, nor in the failed jobs' data.
    expect(JSON.stringify(history)).not.toContain('bounce.manager');

    // The address takes mail again; the retry the approval names delivers it and ends the problem.
    smtp.refused.delete(BOUNCING);
    const retry = await api(
      t.url,
      'POST',
      `/api/operations/queues/${d.paymentProblem.queue}/jobs/${encodeURIComponent(d.paymentProblem.jobId)}/retry`,
      { token: admin },
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const after = await until('the problem over', async () => {
      const x = await detail(id);
      return x.paymentProblem === null ? x : null;
    });
    expect(after.paymentProblem).toBeNull();
    expect(smtp.delivered).toContain(BOUNCING);
    const events = (await t.started.app.store.readStream(approvalStreamId(id))).events;
    expect(events.map((e) => e.type)).toContain('PaymentJobRecovered');
  }, 90_000);
});
