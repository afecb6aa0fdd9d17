// The effective entry date end to end on Postgres, Redis, the workers and the QuickBooks simulator,
// the payment clock set to Monday 2026-12-07 09:00 New York (no waiting for a time of day): a date
// chosen at approval is the file's batch header date (positions 70–75); a date that is no banking
// day is refused 400 with nothing recorded; Regenerate takes a date too; a company that sends
// Same-Day ACH gets today and SD1700 (positions 64–69) before the 14:45 deadline, tomorrow after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, gql, signIn } from '../../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../../test/support/payments.js';
import type { QbBill } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { paymentClock } from '../../shared/payment-clock.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-dates', clientSecret: 'dates-secret-value-7731' };
// December: New York is UTC-5.
const MONDAY_9AM = new Date('2026-12-07T14:00:00Z');
const MONDAY_3PM = new Date('2026-12-07T20:00:00Z');
const realClock = paymentClock.now;
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let companyId = 0;
/** Open bills of vendors given banking, one per approval. */
const open: QbBill[] = [];

async function createApproval(): Promise<{ id: string; billId: string }> {
  const bill = open.shift()!;
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds: [bill.Id], recipients: ['payables@dates.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return { id: c.body.data.id as string, billId: bill.Id };
}

async function approve(effectiveDate?: string) {
  const { id, billId } = await createApproval();
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, {
    body: { approvedBills: [billId], ...(effectiveDate ? { effectiveDate } : {}) },
    token: admin,
  });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return id;
}

/**
 * The batch header (record 5) of the approval's current file, its batch in the window's shared file
 * (decision 0040): its descriptive and effective dates.
 */
async function batchHeader(d: {
  nachaFileUrl: string;
  nachaFiles: Array<{ current: boolean; batchNumber: number }>;
}) {
  const res = await fetch(`${t.url}${d.nachaFileUrl}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(res.status).toBe(200);
  const batch = String(d.nachaFiles.find((f) => f.current)!.batchNumber).padStart(7, '0');
  const line = (await res.text()).split(/\r?\n/).find((l) => l.startsWith('5') && l.endsWith(batch))!;
  return { descriptiveDate: line.slice(63, 69), effectiveDate: line.slice(69, 75) };
}

const eventTypes = async (id: string) =>
  (await t.started.app.store.readStream(approvalStreamId(id))).events.map((e) => e.type);

const setSameDay = async (sameDayAch: boolean) => {
  const r = await api(t.url, 'PUT', `/api/company/companies/${companyId}/same-day-ach`, {
    body: { sameDayAch },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.sameDayAch).toBe(sameDayAch);
};

beforeAll(async () => {
  paymentClock.now = () => MONDAY_9AM;
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  let realm: Awaited<ReturnType<typeof connectedCompany>>['realm'];
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Dated Dairy',
  }));
  await readyToPay(t.url, admin, companyId);
  const vendorIds = new Map((await syncVendors(t.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  for (const [qbVendorId, id] of vendorIds) {
    const r = await api(t.url, 'PUT', `/api/vendors/${id}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: `7788${qbVendorId.padStart(6, '0')}`,
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  open.push(...realm.bills.filter((b) => b.Balance > 0 && vendorIds.has(b.VendorRef.value)));
  expect(open.length).toBeGreaterThanOrEqual(6);
}, 60_000);

afterAll(async () => {
  paymentClock.now = realClock;
  await t?.stop();
  await sim?.close();
});

describe('the effective entry date', () => {
  it('is the next banking day by default, the date chosen at approval when one is', async () => {
    const plain = await nachaOutcome(t.url, admin, await approve());
    expect(plain).toMatchObject({ status: 'NACHA_GENERATED', nachaEffectiveDate: '2026-12-08' });
    expect(await batchHeader(plain)).toEqual({ descriptiveDate: '      ', effectiveDate: '261208' });

    const id = await approve('2026-12-10');
    const d = await nachaOutcome(t.url, admin, id);
    expect(d).toMatchObject({
      status: 'NACHA_GENERATED',
      nachaEffectiveDate: '2026-12-10',
      nachaSameDay: false,
      nachaDateNote: null,
    });
    expect(await batchHeader(d)).toEqual({ descriptiveDate: '      ', effectiveDate: '261210' });
    const state = (await t.started.app.commands.load(approvalDecider, approvalStreamId(id))).state;
    expect(state.payment.chosenEffectiveDate).toBe('2026-12-10');
  });

  it('refuses a day that is not a banking day, or past, with 400 and records nothing', async () => {
    const { id, billId } = await createApproval();
    const before = await eventTypes(id);
    for (const [date, words] of [
      ['2026-12-12', '2026-12-12 is a Saturday: not a banking day'],
      ['2026-12-25', 'holiday'],
      ['2026-12-04', 'in the past'],
      ['2026-12-07', 'Same-Day ACH'],
      ['2027-02-01', 'more than 30 days ahead'],
      ['tomorrow', 'not a date'],
    ]) {
      const r = await api(t.url, 'PUT', `${A}/${id}/approve`, {
        body: { approvedBills: [billId], effectiveDate: date },
        token: admin,
      });
      expect(r.status, date).toBe(400);
      expect(JSON.stringify(r.body)).toContain(words);
    }
    expect(await eventTypes(id)).toEqual(before);
    const g = await gql(
      t.url,
      `mutation($id: String!, $bills: [String!]!) { approveApproval(id: $id, approvedBillIds: $bills, effectiveDate: "2026-12-13") { id } }`,
      { id, bills: [billId] },
      admin,
    );
    expect(g.errors?.[0]?.message).toContain('Sunday: not a banking day');
    expect(await eventTypes(id)).toEqual(before);
  });

  it('Regenerate takes a date: the new version is effective then; a bad one changes nothing', async () => {
    const id = await approve();
    await nachaOutcome(t.url, admin, id);
    const bad = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, {
      body: { effectiveDate: '2026-12-19' },
      token: admin,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('2026-12-19 is a Saturday: not a banking day');
    const r = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, {
      body: { effectiveDate: '2026-12-11' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = await nachaOutcome(t.url, admin, id, 2);
    expect(d.nachaEffectiveDate).toBe('2026-12-11');
    expect((await batchHeader(d)).effectiveDate).toBe('261211');
  });

  it('a Same-Day company: today and SD1700 before 14:45 New York, the next banking day after', async () => {
    await setSameDay(true);
    try {
      const d = await nachaOutcome(t.url, admin, await approve());
      expect(d).toMatchObject({ nachaEffectiveDate: '2026-12-07', nachaSameDay: true });
      expect(await batchHeader(d)).toEqual({ descriptiveDate: 'SD1700', effectiveDate: '261207' });
      // Today may be chosen while the window is open.
      const chosen = await nachaOutcome(t.url, admin, await approve('2026-12-07'));
      expect(chosen).toMatchObject({ nachaEffectiveDate: '2026-12-07', nachaSameDay: true });

      paymentClock.now = () => MONDAY_3PM;
      const late = await nachaOutcome(t.url, admin, await approve());
      expect(late).toMatchObject({ nachaEffectiveDate: '2026-12-08', nachaSameDay: false });
      expect(await batchHeader(late)).toEqual({ descriptiveDate: '      ', effectiveDate: '261208' });
    } finally {
      paymentClock.now = () => MONDAY_9AM;
      await setSameDay(false);
    }
  });
});
