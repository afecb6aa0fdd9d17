// The approvals list filtered by what holds the payment, and the dashboard's figures, on Postgres,
// Redis, the workers and the QuickBooks simulator. Each kind of problem is planted through the
// product: a company without NACHA settings (its file waits on a fix), a company whose day of files
// is used up (its file waits for the next banking day), a QuickBooks refusal after the bank paid, and
// a payment job refused. The list's `problem` filter (REST and GraphQL, checked as the other filters
// are), the CSV export, the dashboard's Payments needing attention and waiting, and the chart, which
// counts the payment statuses as Approved so that it covers every approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../test/support/payments.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { paymentsJobHandlers } from '../../workers/approvals/payments.js';
import { achFileDay } from '../nacha/payment-file.js';
import { FileLimitReached, takeFileIdModifier } from '../payments/file-modifier.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-problem-filters', clientSecret: 'problem-filters-secret-4242' };
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let adminId = 0;
let user = '';

/** The planted approvals by what holds them. */
const ids = { nacha: '', waiting: '', quickbooks: '', job: '', healthy: '', pending: '' };

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

interface Company {
  companyId: number;
  realmId: string;
  realm: Realm;
  open: QbBill[];
}

/** A connected company, its vendors synced and given banking; NACHA settings and account unless `bare`. */
async function company(name: string, realmIndex: number, bare = false): Promise<Company> {
  const c = await connectedCompany({ url: t.url, sim, token: admin, app: qbApp, name, realmIndex });
  if (bare) {
    const policy = await api(t.url, 'PUT', `/api/bill-approval/policies/${c.companyId}`, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
      token: admin,
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  } else {
    const bank = c.realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
    await readyToPay(t.url, admin, c.companyId, { paymentAccount: bank.Id });
  }
  const vendors = new Map((await syncVendors(t.url, admin, c.companyId)).map((v) => [v.qbVendorId, v.id]));
  const open = c.realm.bills.filter((b) => b.Balance > 0 && vendors.has(b.VendorRef.value));
  for (const v of new Set(open.slice(0, 12).map((b) => b.VendorRef.value))) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendors.get(v)}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: `5500${v.padStart(7, '0')}`,
        accountType: 'checking',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  return { ...c, open: open.slice(0, 12) };
}

/** An approval of the company's next open bill; approved unless `pending`. */
async function approval(c: Company, pending = false) {
  const bill = c.open.shift()!;
  const made = await api(t.url, 'POST', A, {
    body: { companyId: c.companyId, billIds: [bill.Id], recipients: ['payables@filters.test'] },
    token: admin,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const id = made.body.data.id as string;
  if (!pending) {
    const ok = await api(t.url, 'PUT', `${A}/${id}/approve`, {
      body: { approvedBills: [bill.Id] },
      token: admin,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  }
  return { id, bill };
}

const handle = (id: string, command: Parameters<typeof approvalDecider.decide>[0]) =>
  t.started.app.commands.handle(approvalDecider, approvalStreamId(id), command, { userId: String(adminId) });

const listIds = async (query: string, token = admin) => {
  const r = await api(t.url, 'GET', `${A}?limit=100&${query}`, { token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  // The total is counted with the same filter (not taken from the running totals).
  expect(r.body.meta.pagination.total).toBe(r.body.data.length);
  return (r.body.data as Array<{ id: string; paymentProblem: { kind: string } | null }>)
    .map((a) => a.id)
    .sort();
};
const sorted = (...xs: string[]) => [...xs].sort();

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  const me = await signIn(t.url, t.admin.email, t.admin.password);
  admin = me.tokens.accessToken;
  adminId = me.user.id;
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    body: {
      email: 'uma@filters.test',
      password: 'Passw0rd-123',
      role: 'USER',
      firstName: 'Uma',
      lastName: 'User',
    },
    token: admin,
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  user = (await signIn(t.url, 'uma@filters.test', 'Passw0rd-123')).tokens.accessToken;

  // A file waiting on a fix: the company has no NACHA settings.
  const unset = await company('Unset Upholstery', 0, true);
  ids.nacha = (await approval(unset)).id;
  expect((await nachaOutcome(t.url, admin, ids.nacha)).paymentProblem).toMatchObject({ kind: 'nacha' });

  // A file waiting for the next banking day: the company's day of file ids is used up.
  const full = await company('Full Day Florists', 1);
  const day = achFileDay(new Date());
  for (let i = 0; ; i++) {
    try {
      await takeFileIdModifier(t.started.app, full.companyId, day, `planted-${i}`, { userId: null });
    } catch (err) {
      expect(err).toBeInstanceOf(FileLimitReached);
      break;
    }
    expect(i).toBeLessThan(36);
  }
  ids.waiting = (await approval(full)).id;
  expect((await nachaOutcome(t.url, admin, ids.waiting)).paymentProblem).toMatchObject({ kind: 'waiting' });

  const ready = await company('Paid Pantry', 2);
  // Healthy: its file made, nothing holds it; and one still PENDING.
  ids.healthy = (await approval(ready)).id;
  expect((await nachaOutcome(t.url, admin, ids.healthy)).status).toBe('NACHA_GENERATED');
  ids.pending = (await approval(ready, true)).id;

  // Paid by the bank, refused by QuickBooks: the vendor is inactive there by then.
  const paid = await approval(ready);
  ids.quickbooks = paid.id;
  expect((await nachaOutcome(t.url, admin, paid.id)).status).toBe('NACHA_GENERATED');
  const vendor = { realmId: ready.realmId, vendorId: paid.bill.VendorRef.value };
  const setActive = (active: boolean) =>
    fetch(`${sim.url}/__sim/vendors/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...vendor, active }),
    });
  expect((await setActive(false)).status).toBe(200);
  try {
    const now = () => new Date().toISOString();
    await handle(paid.id, { type: 'MarkBankUploaded', byUserId: adminId, link: null, now: now() });
    await handle(paid.id, { type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() });
    await until('the failed sync', async () => (await detail(paid.id)).paymentProblem?.kind === 'quickbooks');
  } finally {
    await setActive(true);
  }

  // A payment job refused: the QuickBooks sync asked for before the payment.
  ids.job = (await approval(ready)).id;
  await nachaOutcome(t.url, admin, ids.job);
  const job = {
    id: `refused-${ids.job}`,
    name: 'start-qb-sync',
    queueName: 'payments',
    data: { approvalId: ids.job, correlationId: null, causationEventId: `refused-${ids.job}` },
    opts: { attempts: 5 },
    attemptsMade: 0,
  };
  await expect(paymentsJobHandlers['start-qb-sync'](t.started.app, job as never)).rejects.toThrow();
  await until('the refused job', async () => (await detail(ids.job)).paymentProblem?.kind === 'job');
}, 240_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('the approvals list filtered by what holds the payment', () => {
  it('problem=any: every approval someone must act on, and no other; waiting, file and sync apart', async () => {
    expect(await listIds('problem=any')).toEqual(sorted(ids.nacha, ids.quickbooks, ids.job));
    expect(await listIds('problem=waiting')).toEqual([ids.waiting]);
    expect(await listIds('problem=file')).toEqual([ids.nacha]);
    // A failed QuickBooks record, and the sync's own job refused.
    expect(await listIds('problem=sync')).toEqual(sorted(ids.quickbooks, ids.job));
    // With the other filters, and in capitals too (as the status filter takes them).
    expect(await listIds('problem=ANY&status=PAYMENT_COMPLETED')).toEqual([ids.quickbooks]);
    // A USER reads the list, so the filter too.
    expect(await listIds('problem=waiting', user)).toEqual([ids.waiting]);
    // Each row says the same as the filter that found it.
    const rows = (await api(t.url, 'GET', `${A}?limit=100&problem=any`, { token: admin })).body.data;
    expect(rows.map((r: { paymentProblem: { kind: string } }) => r.paymentProblem.kind).sort()).toEqual([
      'job',
      'nacha',
      'quickbooks',
    ]);
    const all = await listIds('');
    expect(all).toEqual(sorted(...Object.values(ids)));
  });

  it('refuses an unknown problem with a field error, as the other filters do', async () => {
    const r = await api(t.url, 'GET', `${A}?problem=broken`, { token: admin });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('problem must be any, file, sync or waiting');
    const g = await gql(t.url, '{ approvals(problem: BROKEN) { total } }', {}, admin);
    expect(g.errors?.[0].message).toMatch(/BROKEN/);
  });

  it('GraphQL takes the filter as an enum and answers as REST does; the CSV export carries it', async () => {
    const g = await gql(
      t.url,
      'query($p: ApprovalPaymentProblemFilter) { approvals(problem: $p, limit: 100) { total data { id paymentProblem { kind retry } } } }',
      { p: 'ANY' },
      admin,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.approvals.total).toBe(3);
    expect(g.data.approvals.data.map((a: { id: string }) => a.id).sort()).toEqual(
      sorted(ids.nacha, ids.quickbooks, ids.job),
    );
    const job = g.data.approvals.data.find((a: { id: string }) => a.id === ids.job);
    expect(job.paymentProblem).toEqual({ kind: 'JOB', retry: 'OPERATIONS' });
    const csv = await fetch(`${t.url}${A}/export?problem=waiting&format=csv`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain(ids.waiting);
    expect(text).not.toContain(ids.nacha);
  });
});

describe('the dashboard', () => {
  it('counts the payments needing attention and, apart, those waiting, as the list filters them', async () => {
    const r = await api(t.url, 'GET', '/api/dashboard/stats', { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ paymentsNeedingAttention: 3, paymentsWaiting: 1 });
    const g = await gql(t.url, '{ dashboardStats { paymentsNeedingAttention paymentsWaiting } }', {}, admin);
    expect(g.data.dashboardStats).toEqual({ paymentsNeedingAttention: 3, paymentsWaiting: 1 });
  });

  it('the chart counts the payment statuses as Approved: its series cover every approval', async () => {
    const r = await api(t.url, 'GET', '/api/dashboard/approvals-by-status?days=7', { token: admin });
    expect(r.status).toBe(200);
    const days = r.body.data as Array<Record<string, number>>;
    for (const d of days) expect(d.pending + d.approved + d.rejected + d.expired).toBe(d.total);
    const sum = (k: string) => days.reduce((s, d) => s + d[k], 0);
    // Five approved (their files asked for, made, paid), one pending: six approvals in all.
    expect(sum('total')).toBe(6);
    expect(sum('approved')).toBe(5);
    expect(sum('pending')).toBe(1);
    const stats = (await api(t.url, 'GET', `${A}/stats`, { token: admin })).body.data;
    expect(sum('approved')).toBe(stats.approved);
  });
});
