// The bank's files on GraphQL, planted through the real path: an approval's NACHA file is made (its
// entries take their traces), then an ADMIN uploads a notification of change and a return written by
// the bank sandbox from that file's entries, over the REST route. ADMIN and MODERATOR read the files
// (with the parked entry) and what needs attention (the open correction with its deadline, the return,
// each with its company, approval and vendor); a USER is refused both. The correction is overdue once
// its six banking days have passed and no longer open once the vendor's bank details change; the
// operations page counts the same (ADMIN only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/support/app.js';
import { api, gql, signIn } from '../../../../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  readyToPay,
  syncVendors,
} from '../../../../test/support/payments.js';
import { writeAnswerFile } from '../../../../tools/bank-sandbox/writer.js';
import type { QbBill } from '../../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../../tools/qbo-sandbox/server.js';
import type { Actor } from '../../../auth/permissions.js';
import { bankAttention } from '../../../operations/bank-attention.js';
import { paymentEntriesNeedingAttention } from './needing-attention.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-bank-files', clientSecret: 'bank-files-secret-4242' };
const PASSWORD = 'Staff-pass-123!';
const COMPANY = 'Returned Rugs GraphQL';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
let adminActor: Actor;
let moderator = '';
let user = '';
let companyId = 0;
let approvalId = '';
let fileLines: string[] = [];
const accounts = ['7100000003', '7100000101'];
/** Billflow's vendor id of each account's vendor. */
const vendorOf = new Map<string, number>();

const FILES = `{ achInboundFiles { fileName source status returns corrections applied alreadyApplied reasons
  receivedAt parked { line kind originalTrace code amountCents reason } } }`;
const ATTENTION = `{ paymentEntriesNeedingAttention { today lookbackDays
  corrections { traceNumber companyId companyName approvalId vendorId vendorName amountCents code description
    correctedAccountLast4 dueBy overdue receivedAt }
  returns { traceNumber companyId companyName approvalId vendorId vendorName amountCents code description receivedAt } } }`;
const BANK =
  '{ bankAttention { lookbackDays openCorrections overdueCorrections parkedEntries failedDeliveries returns } }';

async function upload(token: string, fileName: string, content: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), fileName);
  const r = await fetch(`${t.url}/api/payments/inbound-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: r.status, body: (await r.json()) as any };
}

function original(account: string) {
  const batchHeader = fileLines.find((l) => l.startsWith('5'))!;
  const entry = fileLines.find((l) => l.startsWith('6') && l.slice(12, 29).trim() === account);
  if (!entry) throw new Error(`no entry pays ${account}`);
  return { batchHeader, entry };
}

const answerFile = (kind: 'return' | 'noc', items: Parameters<typeof writeAnswerFile>[0]['items']) =>
  writeAnswerFile({
    kind,
    odfiRouting: NACHA_CONFIG.bankRoutingNumber,
    items,
    createdAt: new Date(),
    traceSequence: 1,
  }).content;

async function register(email: string, role: 'MODERATOR' | 'USER') {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD, role, firstName: role },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return (await signIn(t.url, email, PASSWORD)).tokens.accessToken;
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  const signedIn = await signIn(t.url, t.admin.email, t.admin.password);
  admin = signedIn.tokens.accessToken;
  adminActor = { id: signedIn.user.id, role: 'ADMIN', email: t.admin.email };
  moderator = await register('mo@bank-files.test', 'MODERATOR');
  user = await register('u@bank-files.test', 'USER');
  const connected = await connectedCompany({ url: t.url, sim, token: admin, app: qbApp, name: COMPANY });
  companyId = connected.companyId;
  const bank = connected.realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  // The policy opens the company to all staff: the MODERATOR works on it.
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  const vendorIds = new Map((await syncVendors(t.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  const bills: QbBill[] = [];
  for (const b of connected.realm.bills)
    if (
      b.Balance > 0 &&
      vendorIds.has(b.VendorRef.value) &&
      !bills.some((x) => x.VendorRef.value === b.VendorRef.value)
    )
      bills.push(b);
  expect(bills.length).toBeGreaterThanOrEqual(2);
  bills.length = 2;
  for (const [i, b] of bills.entries()) {
    const vendorId = vendorIds.get(b.VendorRef.value)!;
    vendorOf.set(accounts[i], vendorId);
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: accounts[i],
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const billIds = bills.map((b) => b.Id);
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['ap@bank-files.test'] },
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
  const file = d.nachaFiles.find((f: { current: boolean }) => f.current);
  const text = await fetch(`${t.url}${file.url}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(text.status).toBe(200);
  fileLines = (await text.text()).split(/\r?\n/);

  // A notification of change for the second vendor, and one whose trace is no Billflow entry's.
  const stray = { ...original(accounts[0]) };
  stray.entry = `${stray.entry.slice(0, 79)}${NACHA_CONFIG.bankRoutingNumber.slice(0, 8)}9999999`;
  const noc = await upload(
    admin,
    'COR_1.ach',
    answerFile('noc', [
      {
        ...original(accounts[1]),
        answer: { kind: 'noc', code: 'C01', correctedAccountNumber: '7100000102' },
      },
      { ...stray, answer: { kind: 'noc', code: 'C01', correctedAccountNumber: '7100000778' } },
    ]),
  );
  expect(noc.status, JSON.stringify(noc.body)).toBe(200);
  expect(noc.body.data).toMatchObject({ corrections: 2, applied: 1 });
  const ret = await upload(
    admin,
    'RET_1.ach',
    answerFile('return', [{ ...original(accounts[0]), answer: { kind: 'return', code: 'R03' } }]),
  );
  expect(ret.status, JSON.stringify(ret.body)).toBe(200);
  expect(ret.body.data).toMatchObject({ returns: 1, applied: 1 });
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe("the bank's files on GraphQL", () => {
  it('lists the files read, with the entry parked for a person, to ADMIN and MODERATOR', async () => {
    for (const token of [admin, moderator]) {
      const r = await gql(t.url, FILES, {}, token);
      expect(r.errors).toBeUndefined();
      const files = r.data.achInboundFiles;
      expect(files.map((f: any) => [f.fileName, f.source, f.status, f.returns, f.corrections])).toEqual([
        ['RET_1.ach', 'UPLOAD', 'APPLIED', 1, 0],
        ['COR_1.ach', 'UPLOAD', 'APPLIED', 0, 2],
      ]);
      expect(files[1]).toMatchObject({ applied: 1, alreadyApplied: 0, reasons: [] });
      expect(files[1].parked).toEqual([
        {
          line: expect.any(Number),
          kind: 'CORRECTION',
          originalTrace: `${NACHA_CONFIG.bankRoutingNumber.slice(0, 8)}9999999`,
          code: 'C01',
          amountCents: expect.any(Number),
          reason: 'no entry of a Billflow file has this trace number',
        },
      ]);
    }
  });

  it('answers the open correction with its deadline and the return, each with company, approval and vendor', async () => {
    for (const token of [admin, moderator]) {
      const r = await gql(t.url, ATTENTION, {}, token);
      expect(r.errors).toBeUndefined();
      const answer = r.data.paymentEntriesNeedingAttention;
      expect(answer.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(answer.lookbackDays).toBe(30);
      expect(answer.corrections).toEqual([
        expect.objectContaining({
          companyId,
          companyName: COMPANY,
          approvalId,
          vendorId: vendorOf.get(accounts[1]),
          code: 'C01',
          correctedAccountLast4: '0102',
          overdue: false,
        }),
      ]);
      expect(answer.corrections[0].dueBy > answer.today).toBe(true);
      expect(answer.returns).toEqual([
        expect.objectContaining({
          companyId,
          companyName: COMPANY,
          approvalId,
          vendorId: vendorOf.get(accounts[0]),
          code: 'R03',
          description: expect.stringMatching(/No Account|Unable to Locate/i),
        }),
      ]);
      // Only the tails of account numbers leave the server.
      expect(JSON.stringify(answer)).not.toContain('7100000102');
    }
  });

  it('refuses a USER both reads, and the operations count to all but ADMIN', async () => {
    for (const query of [FILES, ATTENTION]) {
      const r = await gql(t.url, query, {}, user);
      expect(r.data).toBeNull();
      expect(r.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    }
    const refused = await gql(t.url, BANK, {}, moderator);
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const counts = await gql(t.url, BANK, {}, admin);
    expect(counts.errors).toBeUndefined();
    expect(counts.data.bankAttention).toEqual({
      lookbackDays: 30,
      openCorrections: 1,
      overdueCorrections: 0,
      parkedEntries: 1,
      failedDeliveries: 0,
      returns: 1,
    });
  });

  it('flags the correction overdue after its six banking days', async () => {
    const later = new Date(Date.now() + 12 * 86_400_000);
    const answer = await paymentEntriesNeedingAttention(t.started.app, adminActor, later);
    expect(answer.corrections).toEqual([expect.objectContaining({ code: 'C01', overdue: true })]);
    expect(answer.corrections[0].dueBy < answer.today).toBe(true);
    expect(await bankAttention(t.started.app, later)).toMatchObject({
      openCorrections: 1,
      overdueCorrections: 1,
    });
    // Past the 30 days looked back on, nothing is shown.
    const muchLater = await paymentEntriesNeedingAttention(
      t.started.app,
      adminActor,
      new Date(Date.now() + 31 * 86_400_000),
    );
    expect(muchLater).toMatchObject({ corrections: [], returns: [] });
  });

  it("closes the correction once the vendor's bank details change", async () => {
    const vendorId = vendorOf.get(accounts[1])!;
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: '7100000102',
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = (await gql(t.url, ATTENTION, {}, admin)).data.paymentEntriesNeedingAttention;
      if (answer.corrections.length === 0) {
        expect(answer.returns).toHaveLength(1);
        break;
      }
      if (Date.now() > deadline) throw new Error('the correction stayed open after the change');
      await new Promise((res) => setTimeout(res, 50));
    }
  });
});
