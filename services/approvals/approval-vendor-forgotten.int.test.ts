// After a vendor is forgotten (DELETE /api/vendors/{id}): an approval of its bills, approved and
// taken through its NACHA file, still loads its history (REST and GraphQL) and its past (time travel
// at each step). What the vendor's own key sealed (its name, contacts and bank numbers on its stream)
// loads as erased; the approval's snapshot of its contacts is the company's record, sealed with the
// company's key (schema/approvals/events.ts), so the approval names no field erased; the vendor's
// banking, read from the vendors read model, is gone. The log, anchored before and after, verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../test/support/payments.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { writeAnchors } from '../eventstore/anchors.js';
import { verifyLog } from '../eventstore/verify.js';
import { approvalStreamId } from './approval-decider.js';
import { vendorStreamOf } from './history-around.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-forget', clientSecret: 'forget-secret-value-4471' };
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let companyId = 0;
let realm: Realm;
const vendorIds = new Map<string, number>();
let approvalId = '';
let gone = '';
let kept = '';
const GONE_ACCOUNT = '55501234567';
/** The approval's events before the vendor was forgotten: [position, type]. */
let steps: Array<[string, string]> = [];

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Forget Me Bakery',
  }));
  await readyToPay(t.url, admin, companyId);
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);

  // Two vendors with banking and a bill each; one of them is forgotten once its file is made.
  const open = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && vendorIds.has(b.VendorRef.value))
      open.set(b.VendorRef.value, [...(open.get(b.VendorRef.value) ?? []), b]);
  const [[g, goneBills], [k, keptBills]] = [...open];
  gone = g;
  kept = k;
  for (const [q, account] of [
    [gone, GONE_ACCOUNT],
    [kept, '66601234567'],
  ]) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(q)}/banking`, {
      body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const billIds = [goneBills[0].Id, keptBills[0].Id];
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['payables@forgotten.test'] },
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
  expect(d.status).toBe('NACHA_GENERATED');
  const file = await fetch(`${t.url}${d.nachaFileUrl}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(file.status).toBe(200);
  const { events } = await t.started.app.store.readStream(approvalStreamId(approvalId));
  steps = events.map((e) => [e.position, e.type]);
  // Read once before: the process keeps the stream it read; forgetting must still show after.
  expect((await asOf(steps[0][0])).body.data.erased).toEqual([]);
  // Everything so far anchored (and published) before the vendor's key goes.
  await writeAnchors(t.started.app.pool, t.started.app.store);
  const forgot = await api(t.url, 'DELETE', `/api/vendors/${vendorIds.get(gone)}`, { token: admin });
  expect(forgot.status, JSON.stringify(forgot.body)).toBe(200);
}, 90_000);

const asOf = (position: string) =>
  api(t.url, 'GET', `${A}/${approvalId}/as-of?position=${position}`, { token: admin });
const billOf = (approval: any, qbVendorId: string) =>
  approval.billsParsed.find((b: any) => b.VendorRef.value === qbVendorId);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('an approval after its vendor is forgotten', () => {
  it('went through its file first', () => {
    expect(steps.map(([, type]) => type)).toEqual(
      expect.arrayContaining([
        'ApprovalCreated',
        'ApprovalApproved',
        'NachaFileGenerated',
        'NachaFileDownloaded',
      ]),
    );
  });

  it('the vendor’s own events load with its sealed fields erased', async () => {
    const { events } = await t.started.app.store.readStream(vendorStreamOf(companyId, gone));
    const created = events.find((e) => e.type === 'VendorCreated');
    expect(created?.erased).toEqual(['name', 'email', 'phone']);
    expect(created?.data).toMatchObject({ name: null, email: null, phone: null });
    const banking = events.find((e) => e.type === 'VendorBankingUpdated');
    expect([...(banking?.erased ?? [])].sort()).toEqual(['accountNumber', 'routingNumber']);
    expect(events.at(-1)?.type).toBe('VendorForgotten');
  });

  it('its history loads over REST and GraphQL, the forgetting shown as erasing the vendor', async () => {
    const r = await api(t.url, 'GET', `${A}/${approvalId}/history`, { token: admin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const h = r.body.data as Array<{ position: string; action: string; stream: string; details: string }>;
    const own = h.filter((x) => x.stream === approvalStreamId(approvalId)).map((x) => x.position);
    expect(own).toEqual(steps.map(([p]) => p));
    const name = (billOf(await detail(), gone) as any).VendorRef.name;
    expect(h.at(-1)).toMatchObject({
      action: 'Vendor forgotten',
      stream: vendorStreamOf(companyId, gone),
      details: `${name}: its own contacts and bank details erased; this approval keeps the copy it was made with (the company's record)`,
    });
    expect(JSON.stringify(h)).not.toContain(GONE_ACCOUNT);
    const g = await gql(
      t.url,
      'query($id: String!) { approvalHistory(id: $id) { position action details } }',
      { id: approvalId },
      admin,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.approvalHistory).toEqual(
      h.map(({ position, action, details }) => ({ position, action, details })),
    );
  });

  it('time travel loads at every step: nothing of the approval erased, the vendor’s banking gone', async () => {
    for (const [position, type] of steps) {
      const r = await asOf(position);
      expect(r.status, `${type}: ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.body.data.asOf).toMatchObject({ position, eventType: type });
      // The contacts snapshot is sealed with the company's key, which is still there.
      expect(r.body.data.erased).toEqual([]);
      const forgotten = billOf(r.body.data.approval, gone);
      expect(forgotten.VendorInfo.Email).toEqual(expect.any(String));
      expect(forgotten.achStatus).toMatchObject({
        hasBankingInfo: false,
        vendorId: null,
        accountNumber: null,
      });
      expect(billOf(r.body.data.approval, kept).achStatus).toMatchObject({
        hasBankingInfo: true,
        vendorId: vendorIds.get(kept),
      });
      expect(JSON.stringify(r.body)).not.toContain(GONE_ACCOUNT);
    }
    const generated = steps.find(([, type]) => type === 'NachaFileGenerated')![0];
    const g = await gql(
      t.url,
      `query($id: String!, $p: String) {
        approval(id: $id, asOf: { position: $p }) { status bills { vendorEmail achStatus { hasBankingInfo } } }
        approvalAsOf(id: $id, asOf: { position: $p }) { asOf { eventType } erased }
      }`,
      { id: approvalId, p: generated },
      admin,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.approval.status).toBe('NACHA_GENERATED');
    expect(g.data.approvalAsOf).toEqual({ asOf: { eventType: 'NachaFileGenerated' }, erased: [] });
  });

  it('the log still verifies, anchored before and after the forgetting', async () => {
    await writeAnchors(t.started.app.pool, t.started.app.store);
    const v = await verifyLog(t.started.app.pool);
    expect(v.findings).toEqual([]);
    expect(v.unanchored).toBe(0);
    expect(v.anchors).toBeGreaterThanOrEqual(2);
  });
});

const detail = async () => (await api(t.url, 'GET', `${A}/${approvalId}`, { token: admin })).body.data;
