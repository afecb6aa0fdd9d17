// Time travel through the product's own calls (REST and GraphQL): an approval's answer after each of
// its events (by position and by time), now equal to the detail; ADMIN and MODERATOR only, staff
// scope kept (404 outside it), bad points refused (400); an event stored in an older schema version
// read upcast by the projection, time travel and the history; after the company is forgotten, time
// travel still loads, naming the erased fields and showing them empty.
// Events are appended as the product's own (sealed by the product's store): making approvals through
// the API would need the QuickBooks simulator, and this is about reading the log.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import { eventRegistry } from '../../schema/shared/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { approvalCreated, billSnapshot } from '../../test/support/bills.js';
import { api, gql, signIn } from '../../test/support/http.js';
// @ts-expect-error: plain JavaScript on purpose (Node alone runs it), without type declarations
import { checkBundle } from '../../tools/audit-verifier.mjs';
import type { PersonalDataStore } from '../privacy/personal-data.js';
import { approvalStreamId } from './approval-decider.js';
import { OLD_REJECTED_UPCAST, type RejectedV0 } from './as-of-old-shapes.js';
import { exportApproval } from './audit-bundle.js';

const A = '/api/bill-approval/approvals';
let t: TestApp;
let admin = '';
let moderator = '';
let user = '';
let adminId = 0;
let openCompany = 0;
let closedCompany = 0;
const rejectedDef = eventRegistry.ApprovalRejected;
const keptUpcasters = rejectedDef.upcasters;

/** Appends one event to the approval's stream; its log position. */
async function append(
  id: string,
  event: ApprovalEvent | { type: string; data: unknown },
  schemaVersion?: number,
) {
  const r = await t.started.app.store.append(
    approvalStreamId(id),
    [
      {
        id: randomUUID(),
        type: event.type,
        data: event.data,
        metadata: { userId: String(adminId) },
        ...(schemaVersion !== undefined ? { schemaVersion } : {}),
      },
    ],
    'any',
  );
  return r.position;
}

const created = (id: string, companyId: number, at: string) =>
  approvalCreated({
    approvalId: id,
    companyId,
    createdBy: adminId,
    bills: [
      billSnapshot('10', 4000),
      billSnapshot('11', 693.45, { VendorRef: { value: '56', name: 'Acme Paper' } }),
    ],
    vendorContacts: [
      { qbVendorId: '55', email: 'ap@acme.test', phone: '555-0100' },
      { qbVendorId: '56', email: 'billing@beta.test', phone: null },
    ],
    recipients: ['boss@client.test'],
    at,
  });

/** The detail once the read model shows `status`. */
async function detailWhen(id: string, done: (d: any) => boolean) {
  for (let i = 0; i < 200; i++) {
    const r = await api(t.url, 'GET', `${A}/${id}`, { token: admin });
    if (r.status === 200 && done(r.body.data)) return r.body.data;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`the read model never showed ${id} as expected`);
}

const asOf = (id: string, q: string, token = admin) => api(t.url, 'GET', `${A}/${id}/as-of${q}`, { token });

async function register(role: string, email: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: 'Passw0rd-123', role, firstName: 'Ada', lastName: role },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (await signIn(t.url, email, 'Passw0rd-123')).tokens.accessToken;
}

async function company(name: string, openToAllStaff: boolean) {
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name }, token: admin });
  const id = c.body.data.id as number;
  if (openToAllStaff)
    expect(
      (
        await api(t.url, 'PUT', `/api/bill-approval/policies/${id}`, {
          body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
          token: admin,
        })
      ).status,
    ).toBe(200);
  return id;
}

const base = Date.now() - 3_600_000;
const minute = (m: number) => new Date(base + m * 60_000).toISOString();
const main = randomUUID();
const positions: string[] = [];

beforeAll(async () => {
  rejectedDef.upcasters = { ...keptUpcasters, ...OLD_REJECTED_UPCAST };
  t = await startTestApp();
  const signed = await signIn(t.url, t.admin.email, t.admin.password);
  admin = signed.tokens.accessToken;
  adminId = Number(signed.user.id);
  moderator = await register('MODERATOR', 'mod@as-of.test');
  user = await register('USER', 'user@as-of.test');
  openCompany = await company('Time Travel Bakery', true);
  closedCompany = await company('Closed Books Ltd', false);
  positions.push(await append(main, created(main, openCompany, minute(1))));
  positions.push(
    await append(main, {
      type: 'ApprovalUpdated',
      data: { approvalId: main, companyId: openCompany, priority: 'LOW', at: minute(2) },
    }),
  );
  positions.push(
    await append(main, {
      type: 'ApprovalApproved',
      data: {
        approvalId: main,
        companyId: openCompany,
        approvedBillIds: ['10'],
        byUserId: adminId,
        firstApprovedBy: null,
        at: minute(3),
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  rejectedDef.upcasters = keptUpcasters;
  await t?.stop();
});

describe('time travel over REST', () => {
  it('answers the approval after each event, by position and by time', async () => {
    await detailWhen(main, (d) => d.status !== 'PENDING');
    const first = await asOf(main, `?position=${positions[0]}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.approval).toMatchObject({
      id: main,
      status: 'PENDING',
      priority: 'HIGH',
      approvedBillCount: 0,
      companyName: 'Time Travel Bakery',
      creator: { id: adminId },
      recipients: ['boss@client.test'],
    });
    expect(first.body.data.approval.billsParsed.map((b: any) => b.VendorInfo.Email)).toEqual([
      'ap@acme.test',
      'billing@beta.test',
    ]);
    expect(first.body.data.asOf).toMatchObject({
      position: positions[0],
      eventType: 'ApprovalCreated',
      step: 1,
    });
    expect(first.body.data.steps.slice(0, 3).map((s: any) => [s.position, s.type])).toEqual([
      [positions[0], 'ApprovalCreated'],
      [positions[1], 'ApprovalUpdated'],
      [positions[2], 'ApprovalApproved'],
    ]);
    expect(first.body.data.erased).toEqual([]);

    const second = await asOf(main, `?position=${positions[1]}`);
    expect(second.body.data.approval).toMatchObject({ status: 'PENDING', priority: 'LOW' });
    const third = await asOf(main, `?at=${encodeURIComponent(minute(3.5))}`);
    expect(third.body.data.asOf.position).toBe(positions[2]);
    expect(third.body.data.approval).toMatchObject({
      status: 'APPROVED',
      approvedBillCount: 1,
      approvedAmount: 4000,
      approver: { id: adminId },
    });
    expect(third.body.data.approval.approvedBillsParsed.map((b: any) => b.Id)).toEqual(['10']);
  });

  it('now is the detail, field for field (the fold is the projection’s)', async () => {
    // The payments process manager moves an approved approval on: wait until its stream is still.
    let now: any;
    for (let i = 0; i < 100; i++) {
      now = (await asOf(main, '')).body.data;
      const d = await api(t.url, 'GET', `${A}/${main}`, { token: admin });
      const { viewerMayApprove: _v, approveBlockedReason: _r, ...detail } = d.body.data;
      if (isDeepStrictEqual(detail, now.approval)) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    const d = await api(t.url, 'GET', `${A}/${main}`, { token: admin });
    const { viewerMayApprove: _v, approveBlockedReason: _r, ...detail } = d.body.data;
    expect(now.approval).toEqual(detail);
  });

  it('refuses USER (403), staff outside the company (404), and bad points (400)', async () => {
    expect((await asOf(main, '', user)).status).toBe(403);
    expect((await asOf(main, '', moderator)).status).toBe(200);
    const closed = randomUUID();
    await append(closed, created(closed, closedCompany, minute(1)));
    expect((await asOf(closed, '', moderator)).status).toBe(404);
    expect((await asOf(closed, '', admin)).status).toBe(200);
    expect((await asOf(randomUUID(), '', admin)).status).toBe(404);
    for (const q of [
      '?position=not-a-position',
      '?position=00000000000000000000:00000000000000000000',
      `?at=${encodeURIComponent(minute(0))}`,
      '?at=yesterday',
      `?position=${positions[0]}&at=${encodeURIComponent(minute(2))}`,
    ]) {
      const r = await asOf(main, q);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe('VALIDATION');
    }
  });
});

describe('time travel over GraphQL', () => {
  it('approval(id, asOf) answers the approval then; approvalAsOf its steps', async () => {
    const r = await gql(
      t.url,
      `query($id: String!, $p: String) {
        approval(id: $id, asOf: { position: $p }) { status priority approvedBillCount bills { vendorEmail } }
        approvalAsOf(id: $id, asOf: { position: $p }) { asOf { position eventType step steps } steps { position type at } erased }
      }`,
      { id: main, p: positions[1] },
      admin,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.approval).toMatchObject({ status: 'PENDING', priority: 'LOW', approvedBillCount: 0 });
    expect(r.data.approvalAsOf.asOf).toMatchObject({
      position: positions[1],
      eventType: 'ApprovalUpdated',
      step: 2,
    });
    expect(r.data.approvalAsOf.steps.length).toBeGreaterThanOrEqual(3);
    const plain = await gql(
      t.url,
      'query($id: String!) { approval(id: $id) { status } }',
      { id: main },
      user,
    );
    expect(plain.errors).toBeUndefined();
    const refused = await gql(
      t.url,
      'query($id: String!, $p: String) { approval(id: $id, asOf: { position: $p }) { status } }',
      { id: main, p: positions[0] },
      user,
    );
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const bad = await gql(
      t.url,
      'query($id: String!) { approvalAsOf(id: $id, asOf: { position: "x" }) { erased } }',
      { id: main },
      admin,
    );
    expect(bad.errors?.[0].extensions?.code).toBe('VALIDATION');
  });
});

describe('old shapes and erased subjects', () => {
  it('an ApprovalRejected of version 0 is read upcast by the projection, time travel and the history', async () => {
    const id = randomUUID();
    await append(id, created(id, openCompany, minute(1)));
    const old: RejectedV0 = {
      approvalId: id,
      companyId: openCompany,
      comment: 'Wrong vendor',
      rejectedBy: adminId,
      date: minute(4),
    };
    const p = await append(id, { type: 'ApprovalRejected', data: old }, 0);
    const detail = await detailWhen(id, (d) => d.status === 'REJECTED');
    expect(detail).toMatchObject({
      rejectionReason: 'Wrong vendor',
      rejectedBy: adminId,
      rejectionDate: minute(4),
    });
    const then = await asOf(id, `?position=${p}`);
    expect(then.status).toBe(200);
    expect(then.body.data.approval).toMatchObject({ status: 'REJECTED', rejectionReason: 'Wrong vendor' });
    const history = await api(t.url, 'GET', `${A}/${id}/history`, { token: admin });
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body.data)).toContain('Wrong vendor');
    // The audit bundle keeps the event as stored and shows it upcast in the auditor's view.
    const app = t.started.app;
    const publishTo = path.join(mkdtempSync(path.join(os.tmpdir(), 'as-of-')), 'anchors.jsonl');
    const bundle = await exportApproval(
      app.pool,
      { raw: (app.store as PersonalDataStore).inner, opened: app.store },
      id,
      { publishTo },
    );
    const stored = bundle.events.find((e) => e.type === 'ApprovalRejected');
    expect(stored?.data).toMatchObject({ comment: 'Wrong vendor' });
    const seen = bundle.view.find((e) => e.type === 'ApprovalRejected');
    expect(seen?.data).toMatchObject({ reason: 'Wrong vendor', byUserId: adminId, at: minute(4) });
    // The verifier proves it; what the upcast renamed it reports unverified, field by field.
    expect(seen?.reshaped).toBe(true);
    expect(bundle.view.filter((e) => e.reshaped).map((e) => e.type)).toEqual(['ApprovalRejected']);
    const published = readFileSync(publishTo, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const checked = checkBundle(bundle, published) as { failures: string[]; unverified: string[] };
    expect(checked.failures).toEqual([]);
    const where = `view version 2 ApprovalRejected`;
    const today = "(the entry is read in today's shape)";
    expect(checked.unverified).toEqual([
      `${where}.at: not in the stored event ${today}`,
      `${where}.byUserId: not in the stored event ${today}`,
      `${where}.comment: not shown under this name ${today}`,
      `${where}.date: not shown under this name ${today}`,
      `${where}.reason: not in the stored event ${today}`,
      `${where}.rejectedBy: not shown under this name ${today}`,
    ]);
  });

  it('after the company is forgotten, time travel still loads, its personal fields erased', async () => {
    const gone = await company('Forgotten Foods', true);
    const id = randomUUID();
    const p = await append(id, created(id, gone, minute(1)));
    await detailWhen(id, (d) => d.status === 'PENDING');
    // Read once before: the process keeps the stream it read, opened; forgetting must still show.
    const before = await asOf(id, `?position=${p}`);
    expect(before.body.data.approval.billsParsed[0].VendorInfo.Email).toBe('ap@acme.test');
    await t.started.app.subjectKeys.forget(`company-${gone}`);
    const r = await asOf(id, `?position=${p}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.erased).toEqual(['recipients', 'vendorContacts']);
    expect(r.body.data.approval).toMatchObject({ status: 'PENDING', recipients: [] });
    expect(r.body.data.approval.billsParsed.map((b: any) => b.VendorInfo.Email)).toEqual([null, null]);
    expect(JSON.stringify(r.body)).not.toContain('acme.test');
    // Its audit bundle still proves the events; the erased fields are unverified, with no salt given.
    const app = t.started.app;
    const publishTo = path.join(mkdtempSync(path.join(os.tmpdir(), 'as-of-')), 'anchors.jsonl');
    const bundle = await exportApproval(
      app.pool,
      { raw: (app.store as PersonalDataStore).inner, opened: app.store },
      id,
      { publishTo },
    );
    expect([...(bundle.view[0].erased ?? [])].sort()).toEqual(['recipients', 'vendorContacts']);
    expect(bundle.view[0].salt).toBeUndefined();
    expect(JSON.stringify(bundle)).not.toContain('acme.test');
    const published = readFileSync(publishTo, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const checked = checkBundle(bundle, published) as { failures: string[]; unverified: string[] };
    expect(checked.failures).toEqual([]);
    expect(checked.unverified).toEqual(
      ['recipients', 'vendorContacts'].map(
        (f) => `view version 1 ApprovalCreated.${f}: erased (its subject was forgotten): nothing to check`,
      ),
    );
  });
});
