// NACHA files end to end on Postgres, Redis, the workers and the QuickBooks
// simulator: approving leads to NACHA_PENDING then NACHA_GENERATED with a file the library validates
// (one entry per vendor, the bills' balances, document numbers in the addenda, 220 credits only, then
// 200 balanced); a bill paid in QuickBooks is left out and named; a vendor without banking fails the
// generation by name, and a fix (approved again: the approver saw no banking) + Regenerate makes
// version 2 while version 1 stays downloadable;
// Regenerate is refused at the bank; modifiers A, B, … per company and day; downloads by ADMIN and
// MODERATOR recorded, USER refused; the penny test's refusals and file; no account number in the
// log or the read model; a forgotten company's files unreadable.
import type { Job } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  setBankingControl,
  syncVendors,
} from '../../test/support/payments.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { nachaJobHandlers } from '../../workers/approvals/nacha-jobs.js';
import { qb } from '../companies/quickbooks.js';
import { parseAchFile } from '../nacha/parser.js';
import { validateAchFile } from '../nacha/validator.js';
import { vendorDecider, vendorStreamId } from '../vendors/vendor-decider.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { paymentFileId } from './payments/nacha-generate.js';
import { AT_THE_BANK } from './payments/payment-decider.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-nacha', clientSecret: 'nacha-secret-value-8812' };
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let moderator = '';
let user = '';
let adminId = 0;
let companyId = 0;
let realmId = '';
let realm: Realm;
/** qb vendor id → Billflow vendor id */
const vendorIds = new Map<string, number>();
/** Account numbers set here: none may be found plain in the log or a read model. */
const accounts = new Map<string, string>();

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

async function qbPost(path: string, body: unknown) {
  const conn = await qb(t.started.app).connections.get(companyId);
  const res = await fetch(`${sim.url}/v3/company/${realmId}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

const nacha = (over: Record<string, unknown> = {}) => ({ ...NACHA_CONFIG, ...over });

async function setBanking(qbVendorId: string, account: string) {
  accounts.set(qbVendorId, account);
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(qbVendorId)}/banking`, {
    body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** Open bills by vendor, none used twice. */
const used = new Set<string>();
const byVendor = () => {
  const out = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && !used.has(b.Id))
      out.set(b.VendorRef.value, [...(out.get(b.VendorRef.value) ?? []), b]);
  return out;
};
const take = (bills: QbBill[]) => {
  for (const b of bills) used.add(b.Id);
  return bills;
};

async function createApproved(billIds: string[], before?: () => Promise<void>) {
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['payables@nacha.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  await before?.();
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token: admin });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return id;
}

const download = (url: string, token = admin) =>
  fetch(`${t.url}${url}`, { headers: { authorization: `Bearer ${token}` } });

let first = '';
let firstFileUrl = '';
let vendorA = '';
let vendorB = '';

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  const signedIn = await signIn(t.url, t.admin.email, t.admin.password);
  admin = signedIn.tokens.accessToken;
  adminId = signedIn.user.id;
  for (const [role, email] of [
    ['MODERATOR', 'mod@nacha.test'],
    ['USER', 'user@nacha.test'],
  ] as const)
    await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: 'Passw0rd-123', role, firstName: 'Ada', lastName: 'Test' },
      token: admin,
    });
  moderator = (await signIn(t.url, 'mod@nacha.test', 'Passw0rd-123')).tokens.accessToken;
  user = (await signIn(t.url, 'user@nacha.test', 'Passw0rd-123')).tokens.accessToken;
  ({ companyId, realmId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Nacha Bakery',
  }));
  await api(t.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
    token: admin,
  });
  // The files pay the banking set here: held for a second look, it would not be live.
  await setBankingControl(t.url, admin, companyId, false);
  // The bill payments' account: without one no file is made (the books would not follow the bank).
  const account = await api(t.url, 'PUT', `/api/company/companies/${companyId}/payment-account`, {
    body: { qbPaymentAccountReference: realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!.Id },
    token: admin,
  });
  expect(account.status, JSON.stringify(account.body)).toBe(200);
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('the payment file', () => {
  it('fails naming the missing company settings, then a vendor without banking', async () => {
    const vendors = [...byVendor()].filter(([qbId, bills]) => vendorIds.has(qbId) && bills.length >= 1);
    const [qbId, bills] = vendors.at(-1)!;
    const id = await createApproved(take(bills.slice(0, 1)).map((b) => b.Id));
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status).toBe('NACHA_PENDING');
    expect(d.nachaProcessingStatus).toBe('FAILED');
    expect(d.nachaProblems.map((p: any) => p.kind).sort()).toEqual(['company-settings', 'vendor-banking']);
    // The penny test has no vendor to test.
    const penny = await api(t.url, 'POST', `${A}/${id}/generate-penny-test`, { token: admin });
    expect(penny.status).toBe(400);
    expect(penny.body.message ?? JSON.stringify(penny.body)).toContain(
      'No vendors have complete banking information',
    );
    // The company's settings fixed: the vendor without banking is named.
    expect(
      (
        await api(t.url, 'PUT', `/api/company/companies/${companyId}/nacha-config`, {
          body: nacha(),
          token: admin,
        })
      ).status,
    ).toBe(200);
    expect((await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: admin })).status).toBe(200);
    const again = await nachaOutcome(t.url, admin, id, 2);
    expect(again.nachaProblems).toEqual([
      expect.objectContaining({ kind: 'vendor-banking', vendorName: expect.any(String) }),
    ]);
    expect(again.nachaProblems[0].message).toContain('has no banking information');
    // Fixed: banking the approver never saw is approved again (decision 0033), then Regenerate makes
    // version 3, generated.
    await setBanking(qbId, '44556677881');
    const again2 = await api(t.url, 'POST', `${A}/${id}/approve-again`, { token: moderator });
    expect(again2.status, JSON.stringify(again2.body)).toBe(200);
    const r = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: moderator });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('The NACHA file is being regenerated');
    const done = await nachaOutcome(t.url, admin, id, 3);
    expect(done).toMatchObject({
      status: 'NACHA_GENERATED',
      nachaProcessingStatus: 'GENERATED',
      nachaFileGenerated: true,
    });
  });

  it('approve → NACHA_PENDING → NACHA_GENERATED: one entry per vendor, balances, doc numbers, 220', async () => {
    const vendors = [...byVendor()].filter(([qbId, bills]) => vendorIds.has(qbId) && bills.length >= 2);
    [vendorA] = vendors[0];
    [vendorB] = vendors[1];
    await setBanking(vendorA, '98765432101');
    await setBanking(vendorB, '12312312399');
    const aBills = take(vendors[0][1].slice(0, 2));
    const bBills = take(vendors[1][1].slice(0, 1));
    const ids = [...aBills, ...bBills].map((b) => b.Id);
    first = await createApproved(ids);
    const states = (await sql(
      `SELECT event_type FROM es_events WHERE stream_id = $1 ORDER BY stream_version`,
      [approvalStreamId(first)],
    )) as Array<{ event_type: string }>;
    const d = await nachaOutcome(t.url, admin, first);
    expect(states.map((s) => s.event_type)).toContain('ApprovalApproved');
    expect(d.status).toBe('NACHA_GENERATED');
    expect(d.nachaEntryCount).toBe(2);
    expect(d.nachaFileName).toMatch(/^ACH_\d{8}_[A-Z0-9]_NACHA-BAKERY\.txt$/);
    firstFileUrl = d.nachaFileUrl;
    const res = await download(firstFileUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.headers.get('content-disposition')).toContain(d.nachaFileName);
    const text = await res.text();
    expect(validateAchFile(text)).toEqual([]);
    const file = parseAchFile(text);
    // The download is the window's shared file (decision 0040): this approval is the batch its card names.
    const mine = d.nachaFiles.find((f: any) => f.current);
    const batch = file.batches.find((b) => b.header.batchNumber === mine.batchNumber)!;
    expect(batch.header.serviceClassCode).toBe(220);
    expect(batch.entries).toHaveLength(2);
    const cents = (bills: QbBill[]) => bills.reduce((s, b) => s + Math.round(b.Balance * 100), 0);
    const a = batch.entries.find((e) => e.dfiAccountNumber.trim() === '98765432101')!;
    const b = batch.entries.find((e) => e.dfiAccountNumber.trim() === '12312312399')!;
    expect(a.amountCents).toBe(cents(aBills));
    expect(b.amountCents).toBe(cents(bBills));
    for (const bill of aBills) expect(a.addenda[0].paymentRelatedInformation).toContain(bill.DocNumber);
    expect(batch.control.totalCreditCents).toBe(cents(aBills) + cents(bBills));
    expect(file.control.totalDebitCents).toBe(0);
    expect(d.nachaTotalAmount).toBe((cents(aBills) + cents(bBills)) / 100);
    // The file id derives from the approval and the version; the job run again changes nothing.
    expect(firstFileUrl).toBe(`${A}/${first}/nacha-files/${paymentFileId(first, 1)}`);
    const count = async () =>
      (
        await sql(
          `SELECT count(*)::int AS n FROM es_events WHERE stream_id LIKE 'nachafileday-%' OR stream_id = $1`,
          [approvalStreamId(first)],
        )
      )[0].n;
    const before = await count();
    const job = { id: 'payments_rerun_1', data: { approvalId: first, version: 1 } } as unknown as Job;
    expect(await nachaJobHandlers['generate-nacha'](t.started.app, job, undefined)).toBe('stale');
    expect(await count()).toBe(before);
  });

  it('leaves out a bill already paid in QuickBooks and names it', async () => {
    const [paid, open] = take(byVendor().get(vendorA)!.slice(0, 2));
    const id = await createApproved([paid.Id, open.Id], async () => {
      await qbPost('billpayment', {
        VendorRef: { value: vendorA },
        PayType: 'Check',
        CheckPayment: { BankAccountRef: { value: realm.accounts.find((x) => x.AccountType === 'Bank')!.Id } },
        TotalAmt: paid.Balance,
        Line: [{ Amount: paid.Balance, LinkedTxn: [{ TxnId: paid.Id, TxnType: 'Bill' }] }],
      });
    });
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status).toBe('NACHA_GENERATED');
    expect(d.nachaSkippedBills).toEqual([
      { billId: paid.Id, docNumber: paid.DocNumber, reason: 'already paid in QuickBooks' },
    ]);
    const text = await (await download(d.nachaFileUrl)).text();
    const entries = parseAchFile(text).batches[0].entries;
    expect(entries).toHaveLength(1);
    expect(entries[0].amountCents).toBe(Math.round(open.Balance * 100));
    expect(entries[0].addenda[0].paymentRelatedInformation).not.toContain(paid.DocNumber);
  });

  it('regenerates a balanced (200) version 2; version 1 stays downloadable; modifiers A, B, … in order, one a shared file', async () => {
    expect(
      (
        await api(t.url, 'PUT', `/api/company/companies/${companyId}/nacha-config`, {
          body: nacha({ balancedFile: true }),
          token: admin,
        })
      ).status,
    ).toBe(200);
    const g = await gql(
      t.url,
      `mutation($id: String!) { regenerateNacha(id: $id) { message approval { status } } }`,
      { id: first },
      admin,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.regenerateNacha).toEqual({
      message: 'The NACHA file is being regenerated',
      approval: { status: 'NACHA_PENDING' },
    });
    const d = await nachaOutcome(t.url, admin, first, 2);
    expect(d.status).toBe('NACHA_GENERATED');
    const text = await (await download(d.nachaFileUrl)).text();
    expect(validateAchFile(text)).toEqual([]);
    const file = parseAchFile(text);
    expect(file.batches[0].header.serviceClassCode).toBe(200);
    expect(file.control.totalDebitCents).toBe(file.control.totalCreditCents);
    expect(file.batches[0].entries.at(-1)!.transactionCode).toBe(27);
    // Both versions listed, newest first; version 1 still downloads, unchanged.
    expect(d.nachaFiles.map((f: any) => [f.kind, f.version, f.current])).toEqual([
      ['payment', 2, true],
      ['payment', 1, false],
    ]);
    expect(d.nachaFiles[1].url).toBe(firstFileUrl);
    const q = await gql(
      t.url,
      `query($id: String!) { approval(id: $id) { status nachaProcessingStatus nachaVersion nachaFileUrl
        nachaFiles { kind version current url } nachaProblems { kind } } }`,
      { id: first },
      user,
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.approval).toMatchObject({
      status: 'NACHA_GENERATED',
      nachaProcessingStatus: 'GENERATED',
      nachaVersion: 2,
      nachaFileUrl: d.nachaFileUrl,
      nachaProblems: [],
    });
    expect(q.data.approval.nachaFiles.map((f: any) => [f.kind, f.version, f.current])).toEqual([
      ['PAYMENT', 2, true],
      ['PAYMENT', 1, false],
    ]);
    const v1 = await download(firstFileUrl);
    expect(v1.status).toBe(200);
    expect(parseAchFile(await v1.text()).batches[0].header.serviceClassCode).toBe(220);
    // Every file of the company today took the next modifier, from A: one per shared file, not one
    // per approval's file (decision 0040).
    const taken = await sql<{ m: string }>(
      `SELECT data->>'modifier' AS m FROM es_events WHERE stream_id LIKE $1 ORDER BY stream_version`,
      [`nachafileday-${companyId}-%`],
    );
    expect(taken.map((r) => r.m)).toEqual([...'ABCDEFGH'].slice(0, taken.length));
    const made = await sql<{ n: string; files: string }>(
      `SELECT count(*) AS n, count(DISTINCT data->>'fileName') AS files FROM es_events
        WHERE event_type = 'NachaFileGenerated' AND data->>'companyId' = $1`,
      [String(companyId)],
    );
    expect(taken.length).toBe(Number(made[0].files));
    expect(Number(made[0].files)).toBeLessThan(Number(made[0].n));
  });

  it('refuses Regenerate once the file is at the bank', async () => {
    await t.started.app.commands.handle(
      approvalDecider,
      approvalStreamId(first),
      { type: 'MarkBankUploaded', byUserId: adminId, link: null, now: new Date().toISOString() },
      { userId: String(adminId) },
    );
    const r = await api(t.url, 'POST', `${A}/${first}/regenerate-nacha`, { token: admin });
    expect(r.status).toBe(409);
    expect(JSON.stringify(r.body)).toContain(AT_THE_BANK);
    const g = await gql(
      t.url,
      `mutation($id: String!) { regenerateNacha(id: $id) { message } }`,
      { id: first },
      admin,
    );
    expect(JSON.stringify(g.errors)).toContain(AT_THE_BANK);
  });
});

describe('counting', () => {
  it('the stats and the status filter count the payment statuses as approved', async () => {
    const stats = (await api(t.url, 'GET', `${A}/stats?companyId=${companyId}`, { token: user })).body.data;
    expect(stats.byStatus).toMatchObject({ APPROVED: 0, NACHA_GENERATED: 2, BANK_UPLOADED: 1 });
    expect(stats.approved).toBe(3);
    expect(stats.total).toBe(3);
    const list = await api(t.url, 'GET', `${A}?companyId=${companyId}&status=APPROVED`, { token: user });
    expect(list.body.data.map((a: any) => a.status).sort()).toEqual([
      'BANK_UPLOADED',
      'NACHA_GENERATED',
      'NACHA_GENERATED',
    ]);
    expect(list.body.meta.pagination.total).toBe(3);
  });
});

describe('downloads, penny test and what is kept', () => {
  it('downloads for ADMIN and MODERATOR, each recorded; USER refused', async () => {
    expect((await download(firstFileUrl, user)).status).toBe(403);
    expect((await download(firstFileUrl, moderator)).status).toBe(200);
    expect((await download(`${A}/${first}/nacha-files/00000000-0000-4000-8000-000000000000`)).status).toBe(
      404,
    );
    const downloads = await sql<{ data: any; metadata: any }>(
      `SELECT data, metadata FROM es_events WHERE stream_id = $1 AND event_type = 'NachaFileDownloaded'`,
      [approvalStreamId(first)],
    );
    expect(downloads.length).toBeGreaterThanOrEqual(4);
    expect(downloads.every((e) => e.data.byUserId > 0 && e.data.kind === 'payment')).toBe(true);
    const history = await api(t.url, 'GET', `${A}/${first}/history`, { token: admin });
    expect(history.body.data.some((h: any) => h.action === 'NACHA file downloaded')).toBe(true);
  });

  it('penny test: 1–99 cents to each vendor with banking, ACCTVERIFY, a file of its own', async () => {
    const r = await api(t.url, 'POST', `${A}/${first}/generate-penny-test`, { token: admin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ vendorCount: 2, batchNumber: 1 });
    expect(r.body.data.fileName).toMatch(/^ACHVERIFY_\d{8}_[A-Z0-9]_NACHA-BAKERY\.txt$/);
    expect(r.body.data.testAmount).toBeGreaterThanOrEqual(0.02);
    expect(r.body.data.testAmount).toBeLessThanOrEqual(1.98);
    const d = (await api(t.url, 'GET', `${A}/${first}`, { token: admin })).body.data;
    expect(d).toMatchObject({
      pennyTestGenerated: true,
      pennyTestVendorCount: 2,
      pennyTestAmount: r.body.data.testAmount,
    });
    const text = await (await download(d.pennyTestFileUrl)).text();
    expect(validateAchFile(text)).toEqual([]);
    const batch = parseAchFile(text).batches[0];
    expect(batch.header.companyEntryDescription.trim()).toBe('ACCTVERIFY');
    const credits = batch.entries.filter((e) => e.transactionCode === 22);
    expect(credits).toHaveLength(2);
    for (const e of credits) expect(e.amountCents).toBeGreaterThanOrEqual(1);
    expect(d.nachaFiles[0]).toMatchObject({ kind: 'penny-test', version: 0 });
    // GraphQL answers the same shape.
    const g = await gql(
      t.url,
      `mutation($id: String!) { generatePennyTest(id: $id) { testAmount vendorCount fileName batchNumber } }`,
      { id: first },
      moderator,
    );
    expect(g.data.generatePennyTest.vendorCount).toBe(2);
    expect((await api(t.url, 'POST', `${A}/${first}/generate-penny-test`, { token: user })).status).toBe(403);
  });

  it('penny test: a vendor whose banking a file cannot hold is named, with the spec’s prefix', async () => {
    // Banking the API would refuse (routing check digit), as an older import could have left it.
    await t.started.app.commands.handle(
      vendorDecider,
      vendorStreamId(companyId, vendorB),
      {
        type: 'UpdateBanking',
        routingNumber: '123456789',
        accountNumber: '12312312399',
        accountType: 'checking',
        bankName: null,
        source: 'form',
        byUserId: null,
        changeId: 'older-import',
        controlled: false,
        now: new Date().toISOString(),
      },
      { userId: String(adminId) },
    );
    const r = await api(t.url, 'POST', `${A}/${first}/generate-penny-test`, { token: admin });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^Penny test validation failed: .+: its routing number is not a valid/);
  });

  it('keeps no account number in the log or the approvals read model', async () => {
    const events = JSON.stringify(await sql(`SELECT data, metadata FROM es_events`));
    const rows = JSON.stringify(await sql(`SELECT * FROM approvals`));
    expect(accounts.size).toBeGreaterThanOrEqual(3);
    for (const account of [...accounts.values(), '000123456789']) {
      expect(events).not.toContain(account);
      expect(rows).not.toContain(account);
    }
  });

  it('a forgotten company’s stored files can no longer be read', async () => {
    await t.started.app.subjectKeys.forget(`company-${companyId}`);
    const r = await download(firstFileUrl);
    expect(r.status).toBe(404);
    expect(JSON.stringify(await r.json())).toContain('can no longer be read');
  });
});
