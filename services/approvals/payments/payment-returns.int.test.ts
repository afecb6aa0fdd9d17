// A payment the bank returned, end to end on Postgres, Redis, the workers, the QuickBooks simulator and
// a real SMTP server: an approval of two vendors is paid (file, bank upload and payment confirmed by
// staff with a reason, QuickBooks bill payments recorded), then an ADMIN uploads the bank's return of
// one vendor's entry (R03, written by the bank sandbox's own writer from the file's lines). The
// payments module records it on the entry and the approval's own stream learns nothing of it; that
// vendor's QuickBooks payments are voided (recorded on the entry) and its bills open again there, the
// detail, the list row, the history and the dashboard show it beside the status, the manager and
// the creator are mailed (the account by its last four digits), the reactions run again change
// nothing, and the returned bills go into a new approval.
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, signIn } from '../../../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  readyToPay,
  syncVendors,
} from '../../../test/support/payments.js';
import { writeAnswerFile } from '../../../tools/bank-sandbox/writer.js';
import type { QbBill, Realm } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { type SmtpCatcher, startSmtpCatcher } from '../../../tools/smtp-catcher.js';
import { linkJobHandlers } from '../../../workers/approvals/link-jobs.js';
import { paymentMailProcessManager, paymentsProcessManager } from '../../../workers/approvals/payments.js';
import { returnJobHandlers } from '../../../workers/approvals/return-jobs.js';
import type { QbBillPayment } from '../../quickbooks/client.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';

const A = '/api/bill-approval/approvals';
const INBOUND = '/api/payments/inbound-files';
const qbApp = { clientId: 'billflow-returns', clientSecret: 'returns-secret-4242' };
const MANAGER = 'rita.returns@client-mail.test';
const RETURNED_ACCOUNT = '7100000003';
const PAID_ACCOUNT = '7100000101';

let sim: QboSandbox;
let catcher: SmtpCatcher;
let t: TestApp;
let admin = '';
let adminEmail = '';
let companyId = 0;
let realm: Realm;
let approvalId = '';
/** The returned vendor's two bills, and the other vendor's bill (paid and not returned). */
let returnedBills: QbBill[] = [];
let paidBill: QbBill;
let fileLines: string[] = [];

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const stateOf = async (id: string) =>
  (await t.started.app.commands.load(approvalDecider, approvalStreamId(id))).state;
const storedOf = async (id: string) => (await t.started.app.store.readStream(approvalStreamId(id))).events;
const detail = async (id: string) => (await api(t.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
const returnMails = () =>
  catcher
    .messages()
    .filter((m) => /^Payment returned for/.test(m.subject) && (m.html ?? '').includes(approvalId));

async function qbGet<T>(path: string): Promise<T> {
  const access = await t.started.app.quickbooks.access(companyId, { userId: null });
  return access.client.get<T>(access.isSandbox, access.realmId, access.auth, path);
}
const qbBill = async (id: string) => (await qbGet<{ Bill: QbBill }>(`bill/${id}`)).Bill;
const qbPayment = async (id: string) =>
  (await qbGet<{ BillPayment: QbBillPayment & { PrivateNote?: string } }>(`billpayment/${id}`)).BillPayment;

/** The BillPayment Billflow recorded for each bill. */
async function recordedPayments() {
  const out = new Map<string, string>();
  for (const e of await storedOf(approvalId))
    if (e.type === 'QbBillPaid') {
      const d = e.data as { billId: string; billPaymentId: string };
      out.set(d.billId, d.billPaymentId);
    }
  return out;
}

/** The file's batch header and the entry line paying `account`, as the bank names them back. */
function original(account: string) {
  const batchHeader = fileLines.find((l) => l.startsWith('5'))!;
  const entry = fileLines.find((l) => l.startsWith('6') && l.slice(12, 29).trim() === account);
  if (!entry) throw new Error(`no entry pays ${account}`);
  return { batchHeader, entry };
}

async function uploadReturn(account: string, code: string) {
  const content = writeAnswerFile({
    kind: 'return',
    odfiRouting: NACHA_CONFIG.bankRoutingNumber,
    items: [{ ...original(account), answer: { kind: 'return', code } }],
    createdAt: new Date(),
    traceSequence: 1,
  }).content;
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), `RET_${code}.ach`);
  const r = await fetch(`${t.url}${INBOUND}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}` },
    body: form,
  });
  return { status: r.status, body: (await r.json()) as any };
}

const confirmStep = (action: string, reason: string) =>
  api(t.url, 'POST', `${A}/${approvalId}/confirm-step`, { body: { action, reason }, token: admin });

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
  adminEmail = t.admin.email;
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Returned Rattan',
  }));
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  const vendorIds = new Map((await syncVendors(t.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  const open = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && vendorIds.has(b.VendorRef.value))
      open.set(b.VendorRef.value, [...(open.get(b.VendorRef.value) ?? []), b]);
  const byVendor = [...open.values()].sort((x, y) => y.length - x.length);
  returnedBills = byVendor[0].slice(0, 2);
  paidBill = byVendor[1][0];
  expect(returnedBills).toHaveLength(2);
  for (const [bill, account] of [
    [returnedBills[0], RETURNED_ACCOUNT],
    [paidBill, PAID_ACCOUNT],
  ] as const) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(bill.VendorRef.value)}/banking`, {
      body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Rita', lastName: 'Returns', email: MANAGER },
    token: admin,
  });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  const billIds = [...returnedBills, paidBill].map((b) => b.Id);
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, managerId: m.body.data.id },
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
  const file = d.nachaFiles.find((f: { current: boolean }) => f.current);
  const text = await fetch(`${t.url}${file.url}`, { headers: { authorization: `Bearer ${admin}` } });
  fileLines = (await text.text()).split(/\r?\n/);
  const up = await confirmStep('bank-uploaded', 'The bank portal shows the file accepted');
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  const paid = await confirmStep('payment-completed', 'The bank statement shows the debit');
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  const sync = await until('the QuickBooks bill payments', async () => {
    const s = (await stateOf(approvalId)).payment.qbSync;
    return s.status === 'SUCCESS' || s.status === 'FAILED' || s.status === 'PARTIAL_SUCCESS' ? s : null;
  });
  expect(sync.status).toBe('SUCCESS');
  for (const b of [...returnedBills, paidBill]) expect((await qbBill(b.Id)).Balance).toBe(0);
}, 180_000);

afterAll(async () => {
  await t?.stop();
  await catcher?.stop();
  await sim?.close();
});

describe('a payment the bank returned', () => {
  it('voids the vendor’s QuickBooks payments, opens its bills again, and shows on the approval', async () => {
    const payments = await recordedPayments();
    const r = await uploadReturn(RETURNED_ACCOUNT, 'R03');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ returns: 1, applied: 1, parked: [] });
    const trace = original(RETURNED_ACCOUNT).entry.slice(79, 94);
    const entryOf = async () => (await t.started.app.achEntries.answers([trace])).get(trace)!;
    const voids = await until('the void recorded', async () => (await entryOf()).voided);
    expect(voids.map((v) => v.billId).sort()).toEqual(returnedBills.map((b) => b.Id).sort());
    // The approval's stream keeps its milestones only: the bank's answer is the entry's.
    const types = (await storedOf(approvalId)).map((e) => e.type);
    expect(types).not.toContain('PaymentReturnRecorded');
    expect(types).not.toContain('QbBillPaymentVoided');
    expect(types.at(-1)).toBe('QbPaymentSyncFinished');

    // QuickBooks: the returned vendor's payments voided (kept, zeroed), its bills open again; the
    // other vendor's payment stands.
    for (const b of returnedBills) {
      const p = await qbPayment(payments.get(b.Id)!);
      expect(p.TotalAmt).toBe(0);
      expect(p.PrivateNote).toMatch(/^Voided/);
      expect((await qbBill(b.Id)).Balance).toBe(b.Balance);
    }
    expect((await qbPayment(payments.get(paidBill.Id)!)).TotalAmt).toBe(paidBill.Balance);
    expect((await qbBill(paidBill.Id)).Balance).toBe(0);

    // The approval: its status stays, the bank's answer beside it, on the detail and the list row.
    const d = await detail(approvalId);
    expect(d.status).toBe('PAYMENT_COMPLETED');
    expect(d.bankPaymentState).toBe('PARTLY_RETURNED');
    expect(d.bankEntries).toEqual([
      expect.objectContaining({
        traceNumber: trace,
        status: 'returned',
        returnCode: 'R03',
        accountLast4: RETURNED_ACCOUNT.slice(-4),
      }),
    ]);
    const row = await until('the list row', async () => {
      const list = await api(t.url, 'GET', `${A}?companyId=${companyId}&limit=100`, { token: admin });
      const found = list.body.data.find((x: { id: string }) => x.id === approvalId);
      return found?.bankPaymentState ? found : null;
    });
    expect(row.bankPaymentState).toBe('PARTLY_RETURNED');

    // Time travel to the payment's completion: the bank had sent nothing back yet, so nothing shows.
    const stream = await t.started.app.store.readStream(approvalStreamId(approvalId));
    const completed = stream.events.find((e) => e.type === 'PaymentCompleted')!;
    const past = await api(t.url, 'GET', `${A}/${approvalId}/as-of?position=${completed.position}`, {
      token: admin,
    });
    expect(past.status, JSON.stringify(past.body)).toBe(200);
    expect(past.body.data.approval).toMatchObject({ bankPaymentState: null, bankEntries: [] });
    const latest = stream.events.at(-1)!;
    const now = await api(t.url, 'GET', `${A}/${approvalId}/as-of?position=${latest.position}`, {
      token: admin,
    });
    expect(now.body.data.approval.bankPaymentState).toBe('PARTLY_RETURNED');

    // The history names the return and the void, with the bills open again.
    const history = (await api(t.url, 'GET', `${A}/${approvalId}/history`, { token: admin })).body.data;
    const vendor = d.bankEntries[0].vendorName;
    const returned = history.find(
      (h: { action: string }) => h.action === `Payment to ${vendor} returned by the bank`,
    );
    expect(returned?.details).toMatch(/^R03 No account \/ unable to locate account: /i);
    const voided = history.find(
      (h: { action: string }) => h.action === `QuickBooks payment for ${vendor} voided`,
    );
    const docs = returnedBills.map((b) => b.DocNumber || b.Id).join(', ');
    expect(voided?.details).toContain(`Bills ${docs} are open again`);

    // The dashboard counts it until its bills are paid again, as the list's problem filter does.
    const attention = await api(t.url, 'GET', `${A}?companyId=${companyId}&problem=any&limit=100`, {
      token: admin,
    });
    expect(attention.body.data.map((x: { id: string }) => x.id)).toContain(approvalId);
    const stats = (await api(t.url, 'GET', '/api/dashboard/stats', { token: admin })).body.data;
    expect(stats.paymentsNeedingAttention).toBeGreaterThanOrEqual(1);
  });

  it('mails the manager and the creator: vendor, amount, code, what happens next, the last four digits only', async () => {
    const mails = await until('two returned-payment mails', async () => {
      const m = returnMails();
      return m.length >= 2 ? m : null;
    });
    expect(mails.map((m) => m.envelope.to[0]).sort()).toEqual([MANAGER, adminEmail].sort());
    for (const m of mails) {
      expect(m.text).toContain('R03');
      expect(m.text).toContain((await detail(approvalId)).bankEntries[0].vendorName);
      expect(m.text).toMatch(/are open again/);
      expect(m.text).toMatch(/blocked for payments until someone changes them/);
      expect(m.text).toContain(`ending ${RETURNED_ACCOUNT.slice(-4)}`);
      expect(`${m.text}${m.html}`).not.toContain(RETURNED_ACCOUNT);
    }
  });

  it('changes nothing when its reactions run again', async () => {
    const before = (await storedOf(approvalId)).length;
    const requests = async () =>
      (
        (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{ method: string }>
      ).filter((x) => x.method === 'POST').length;
    const posts = await requests();
    const trace = original(RETURNED_ACCOUNT).entry.slice(79, 94);
    const entryStream = async () => (await t.started.app.store.readStream(`achentry-${trace}`)).events;
    const [returnedEvent] = await entryStream();
    const entryBefore = (await entryStream()).length;
    const billsBefore = (await t.started.app.store.readStream(`approvalbills-${companyId}`)).events.length;
    const asJob = (reaction: { jobId: string; name: string; queue: string; data: Record<string, unknown> }) =>
      ({
        id: reaction.jobId,
        name: reaction.name,
        queueName: reaction.queue,
        data: reaction.data,
      }) as unknown as Job;
    const [record, voiding] = paymentsProcessManager.react(returnedEvent);
    const [notify] = paymentMailProcessManager.react(returnedEvent);
    expect([record.name, voiding.name, notify.name]).toEqual([
      'record-return',
      'void-returned-payments',
      'notify-returned',
    ]);
    expect(record.jobId).not.toBe(voiding.jobId);
    await returnJobHandlers['record-return'](t.started.app, asJob(record));
    expect(await returnJobHandlers['void-returned-payments'](t.started.app, asJob(voiding))).toEqual({
      kind: 'done',
      voided: 0,
    });
    await linkJobHandlers['notify-returned'](t.started.app, asJob(notify));
    expect((await storedOf(approvalId)).length).toBe(before);
    expect((await entryStream()).length).toBe(entryBefore);
    expect((await t.started.app.store.readStream(`approvalbills-${companyId}`)).events.length).toBe(
      billsBefore,
    );
    expect(await requests()).toBe(posts);
    const keys = [0, 1].map((i) => `${notify.jobId}_${i}`.replace(/[^A-Za-z0-9_-]/g, '_'));
    const delivered = await t.started.app.pool.query('SELECT key FROM mail_deliveries WHERE key = ANY($1)', [
      keys,
    ]);
    expect(delivered.rows).toHaveLength(2);
    expect(returnMails()).toHaveLength(2);
  });

  it('lets the returned bills go into a new approval; once paid there, the return no longer needs anyone', async () => {
    const paidAgain = await api(t.url, 'POST', A, {
      body: { companyId, billIds: [paidBill.Id], recipients: ['ap@returns.test'] },
      token: admin,
    });
    expect(paidAgain.status).toBeGreaterThanOrEqual(400);
    const billIds = returnedBills.map((b) => b.Id);
    const again = await api(t.url, 'POST', A, {
      body: { companyId, billIds, recipients: ['ap@returns.test'] },
      token: admin,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const next = again.body.data.id as string;
    // The account the bank could not find is replaced (its block lifts when the new one goes live).
    const vendorId = (await syncVendors(t.url, admin, companyId)).find(
      (v) => v.qbVendorId === returnedBills[0].VendorRef.value,
    )!.id;
    const banking = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: '7100000555',
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    expect(banking.status, JSON.stringify(banking.body)).toBe(200);
    const a = await api(t.url, 'PUT', `${A}/${next}/approve`, {
      body: { approvedBills: billIds },
      token: admin,
    });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = await nachaOutcome(t.url, admin, next);
    expect(d.status, JSON.stringify(d.nachaProblems)).toBe('NACHA_GENERATED');
    const inAttention = async () =>
      (
        await api(t.url, 'GET', `${A}?companyId=${companyId}&problem=any&limit=100`, { token: admin })
      ).body.data.map((x: { id: string }) => x.id) as string[];
    // Still counted while the new approval has not paid them.
    expect(await inAttention()).toContain(approvalId);
    for (const [action, reason] of [
      ['bank-uploaded', 'The bank portal shows the file accepted'],
      ['payment-completed', 'The bank statement shows the debit'],
    ])
      expect(
        (await api(t.url, 'POST', `${A}/${next}/confirm-step`, { body: { action, reason }, token: admin }))
          .status,
      ).toBe(200);
    await until(
      'the returned approval out of the attention list',
      async () => !(await inAttention()).includes(approvalId),
    );
    // The old approval keeps its record of the return.
    expect((await detail(approvalId)).bankPaymentState).toBe('PARTLY_RETURNED');
  });
});
