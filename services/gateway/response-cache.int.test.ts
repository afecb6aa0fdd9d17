// The GraphQL response cache (graphql/response-cache.ts) against a real gateway, Postgres and Redis:
// a repeated list or stats query is answered from memory, per caller, and never stale: a change made
// through a command, by another caller, shows in the very next answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { awaitProjections } from '../app/context.js';
import { approvalStreamId } from '../approvals/approval-decider.js';
import { LIST_READ_MODELS } from '../approvals/list.js';

let t: TestApp;
let admin = '';
let adminId = 0;
let moderator = '';
let companyId = 0;
const ids: string[] = [];

const LIST = `query($status: ApprovalStatus) {
  approvals(status: $status, limit: 25, sortBy: createdAt, sortOrder: desc) {
    total data { id status companyName viewerMayApprove }
  }
}`;
const STATS = '{ approvalStats { total pending rejected } }';

/** The cache's hit and miss counts from the gateway's own /metrics. */
async function outcomes(): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(t.started.metricsUrl!)).text();
  const count = (o: string) =>
    Number(
      text.match(new RegExp(`billflow_graphql_response_cache_total\\{outcome="${o}"\\} (\\d+)`))?.[1] ?? 0,
    );
  return { hit: count('hit'), miss: count('miss') };
}

beforeAll(async () => {
  t = await startTestApp();
  const a = await signIn(t.url, t.admin.email, t.admin.password);
  admin = a.tokens.accessToken;
  adminId = a.user.id;
  const password = 'Passw0rd-123';
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    token: admin,
    body: { email: 'mod@cache.test', password, firstName: 'Mo', lastName: 'Derator', role: 'MODERATOR' },
  });
  expect(reg.status).toBe(201);
  moderator = (await signIn(t.url, 'mod@cache.test', password)).tokens.accessToken;
  companyId =
    // The moderator is its approver: staff see only the companies they are assigned to.
    (
      await api(t.url, 'POST', '/api/company/companies', {
        body: { name: 'Cache Co', approverId: reg.body.data.id },
        token: admin,
      })
    ).body.data.id;
  // Three pending approvals, appended as the create command would (no QuickBooks needed here).
  const store = t.started.app.store;
  for (let i = 0; i < 3; i++) {
    const approvalId = randomUUID();
    ids.push(approvalId);
    await store.append(
      approvalStreamId(approvalId),
      [
        {
          id: randomUUID(),
          type: 'ApprovalCreated',
          data: {
            approvalId,
            companyId,
            priority: 'MEDIUM',
            managerId: null,
            createdBy: adminId,
            bills: [
              {
                Id: `cache-${i}`,
                DocNumber: `INV-${i}`,
                TxnDate: '2026-10-01',
                DueDate: '2026-12-01',
                TotalAmt: 100 + i,
                Balance: 100 + i,
                CurrencyRef: 'USD',
                VendorRef: { value: '1', name: 'Vendor' },
                VendorInfo: { CompanyName: 'Vendor' },
                VendorAddr: null,
                Line: [],
                AttachableId: null,
                InvoiceFileName: null,
              },
            ],
            vendorContacts: [],
            recipients: [],
            confirmedDuplicates: [],
            expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
            at: new Date(Date.now() - (3 - i) * 1000).toISOString(),
          },
        },
      ],
      'no_stream',
    );
  }
  // Every read model the list reads has applied all of the above (the sign-ins move `users` too):
  // a late projection batch would otherwise change the answer's version between two calls.
  expect(
    await awaitProjections(t.started.app, await t.started.app.store.headPosition(), LIST_READ_MODELS),
  ).toBe(true);
  expect((await gql(t.url, STATS, {}, admin)).data.approvalStats.total).toBe(3);
});

afterAll(async () => {
  await t?.stop();
});

describe('GraphQL answers kept while their read models stand still', () => {
  it('answers a repeated list from memory with the same bytes, per caller', async () => {
    // The first answer teaches the cache which read models the operation reads; the second is kept.
    const first = await gql(t.url, LIST, { status: 'PENDING' }, admin);
    expect(first.data.approvals.total).toBe(3);
    expect(await gql(t.url, LIST, { status: 'PENDING' }, admin)).toEqual(first);
    const before = await outcomes();
    const second = await gql(t.url, LIST, { status: 'PENDING' }, admin);
    const third = await gql(t.url, LIST, { status: 'PENDING' }, admin);
    const after = await outcomes();
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect(after.hit - before.hit).toBe(2);

    // Another caller is another key: never given the admin's kept answer (viewer fields differ).
    const asModerator = await gql(t.url, LIST, { status: 'PENDING' }, moderator);
    expect(await outcomes()).toEqual({ hit: after.hit, miss: after.miss + 1 });
    expect(asModerator.data.approvals.data.map((a: { id: string }) => a.id)).toEqual(
      first.data.approvals.data.map((a: { id: string }) => a.id),
    );
    // The admin created them: by default the creator may not approve; the moderator may.
    expect(first.data.approvals.data.some((a: { viewerMayApprove: boolean }) => a.viewerMayApprove)).toBe(
      false,
    );
    expect(
      asModerator.data.approvals.data.every((a: { viewerMayApprove: boolean }) => a.viewerMayApprove),
    ).toBe(true);

    // Other variables are another answer.
    const rejected = await gql(t.url, LIST, { status: 'REJECTED' }, admin);
    expect(rejected.data.approvals.total).toBe(0);
  });

  it('is never stale: a change by another caller shows in the next answer, list and stats', async () => {
    await gql(t.url, LIST, { status: 'PENDING' }, admin);
    await gql(t.url, STATS, {}, admin);
    const kept = await gql(t.url, STATS, {}, admin);
    expect(kept.data.approvalStats).toEqual({ total: 3, pending: 3, rejected: 0 });

    const r = await api(t.url, 'PUT', `/api/bill-approval/approvals/${ids[0]}/reject`, {
      body: { rejectionReason: 'Wrong vendor' },
      token: moderator,
    });
    expect(r.status).toBe(200);

    const before = await outcomes();
    const list = await gql(t.url, LIST, { status: 'PENDING' }, admin);
    const stats = await gql(t.url, STATS, {}, admin);
    expect(list.data.approvals.total).toBe(2);
    expect(list.data.approvals.data.map((a: { id: string }) => a.id)).not.toContain(ids[0]);
    expect(stats.data.approvalStats).toEqual({ total: 3, pending: 2, rejected: 1 });
    const after = await outcomes();
    expect(after.hit).toBe(before.hit);
    expect(after.miss - before.miss).toBe(2);
  });

  it('keeps the REST list the same way: same envelope, per caller, never stale', async () => {
    const url = '/api/bill-approval/approvals?status=PENDING&limit=25';
    const first = await api(t.url, 'GET', url, { token: admin });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      meta: { pagination: { total: 2, page: 1, limit: 25 } },
    });
    const before = await outcomes();
    const again = await fetch(`${t.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await again.json()).toEqual(first.body);
    expect((await outcomes()).hit - before.hit).toBe(1);

    const r = await api(t.url, 'PUT', `/api/bill-approval/approvals/${ids[1]}/reject`, {
      body: { rejectionReason: 'Duplicate' },
      token: moderator,
    });
    expect(r.status).toBe(200);
    const after = await api(t.url, 'GET', url, { token: admin });
    expect(after.body.meta.pagination.total).toBe(1);
    expect(after.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2]]);
    // A refusal is answered as usual and never kept.
    for (let i = 0; i < 2; i++)
      expect((await api(t.url, 'GET', '/api/bill-approval/approvals?limit=7', { token: admin })).status).toBe(
        400,
      );
  });

  it('keeps nothing for the signed out, for errors or for mutations', async () => {
    const before = await outcomes();
    for (let i = 0; i < 2; i++) {
      const anon = await gql(t.url, LIST, { status: 'PENDING' });
      expect(anon.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const bad = await gql(t.url, LIST, { status: 'NOT_A_STATUS' }, admin);
      expect(bad.errors?.length).toBeGreaterThan(0);
    }
    expect((await outcomes()).hit).toBe(before.hit);
  });
});
