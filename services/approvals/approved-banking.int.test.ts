// A file pays only the bank details its approver saw (decision 0033), on the real gateway, workers and
// the QuickBooks simulator, with the company's control on bank detail changes kept on. The insider
// probe replayed: approve → change the vendor's account → Regenerate does not pay the new account;
// the vendor is held out and named while the rest of the file goes ahead; a second person approves
// the change, the approval is approved again, and Regenerate's file pays the new account (parsed).
// The flags where money is decided (list, detail, /bills), approve again's refusals, and the
// operations page's patterns (one user changing many vendors in an hour, a change then a payment).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { connectedCompany, readyToPay, syncVendors } from '../../test/support/payments.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { parseAchFile } from '../nacha/parser.js';
import { RAPID_CHANGE_THRESHOLD } from '../operations/banking-patterns.js';
import { approvalStreamId } from './approval-decider.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-approved-banking', clientSecret: 'approved-banking-secret-31' };
const PASSWORD = 'Passw0rd-123';
/** How long an outcome of the workers may take on a busy 2-core machine. */
const OUTCOME_MS = 90_000;

let sim: QboSandbox;
let catcher: SmtpCatcher;
let t: TestApp;
let admin = '';
let mona = ''; // the insider: a MODERATOR who approves, then changes the account
let max = ''; // a second MODERATOR
let user = '';
let monaId = 0;
let companyId = 0;
let realm: Realm;
const vendorIds = new Map<string, number>();

const OLD = { routingNumber: '111000025', accountNumber: '55500011004', accountType: 'checking' };
const NEW = { routingNumber: '021000021', accountNumber: '66666666666', accountType: 'checking' };
const OTHER = { routingNumber: '011000015', accountNumber: '77700022005', accountType: 'savings' };

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

/** Polls until `probe` answers something, bounded generously; fails naming what never came. */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = OUTCOME_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const detail = async (id: string, token = admin) =>
  (await api(t.url, 'GET', `${A}/${id}`, { token })).body.data;

/** The approval once its file version `version` has an outcome. */
const outcome = (id: string, version: number) =>
  until(`the outcome of file v${version} of ${id}`, async () => {
    const d = await detail(id);
    return d.nachaVersion === version && d.nachaProcessingStatus !== 'REQUESTED' ? d : null;
  });

/** The entries of the approval's current file, parsed: account → routing and amount. */
async function entriesOf(d: { nachaFileUrl: string }) {
  const res = await fetch(`${t.url}${d.nachaFileUrl}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(res.status).toBe(200);
  const file = parseAchFile(await res.text());
  return file.batches.flatMap((b) =>
    b.entries.map((e) => ({
      account: e.dfiAccountNumber.trim(),
      routing: `${e.rdfiIdentification}${e.checkDigit}`,
      cents: e.amountCents,
    })),
  );
}

/** A change of the vendor's banking by `maker`, held; `approver` (another person) makes it live. */
async function setBanking(vendorId: number, banking: object, maker: string, approver?: string) {
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, { body: banking, token: maker });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const change = r.body.data.pendingBankingChange;
  expect(change?.status, JSON.stringify(r.body)).toBe('pending');
  if (approver) {
    const ok = await api(
      t.url,
      'POST',
      `/api/vendors/${vendorId}/banking-changes/${change.changeId}/approve`,
      {
        body: { reason: 'Confirmed with the vendor by phone' },
        token: approver,
      },
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  }
  return change.changeId as string;
}

/** Two vendors Billflow knows with at least `n` open bills each, none used twice. */
const used = new Set<string>();
function vendorsWithBills(n: number, count: number): Array<[string, QbBill[]]> {
  const byVendor = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && !used.has(b.Id) && vendorIds.has(b.VendorRef.value))
      byVendor.set(b.VendorRef.value, [...(byVendor.get(b.VendorRef.value) ?? []), b]);
  const picked = [...byVendor].filter(([, bs]) => bs.length >= n).slice(0, count);
  expect(picked).toHaveLength(count);
  for (const [, bs] of picked) for (const b of bs.slice(0, 1)) used.add(b.Id);
  return picked;
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [role, email, first] of [
    ['MODERATOR', 'mona@approved-banking.test', 'Mona'],
    ['MODERATOR', 'max@approved-banking.test', 'Max'],
    ['USER', 'uma@approved-banking.test', 'Uma'],
  ] as const) {
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: PASSWORD, role, firstName: first, lastName: 'Staff' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  const m = await signIn(t.url, 'mona@approved-banking.test', PASSWORD);
  mona = m.tokens.accessToken;
  monaId = m.user.id;
  max = (await signIn(t.url, 'max@approved-banking.test', PASSWORD)).tokens.accessToken;
  user = (await signIn(t.url, 'uma@approved-banking.test', PASSWORD)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Approved Banking Bakery',
  }));
  // The control stays on: every change below waits for a second person.
  await readyToPay(t.url, admin, companyId, { bankingControl: true });
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
}, 180_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
  await catcher?.stop();
});

describe('the insider probe', () => {
  let id = '';
  let victim = ''; // the vendor whose account the insider changes
  let bystander = ''; // a vendor of the same approval whose banking stays
  let victimBills: QbBill[] = [];

  it('approve, then change the account, then Regenerate: the new account is not paid; the vendor is held out, named', async () => {
    const [[v, vBills], [w, wBills]] = vendorsWithBills(2, 2);
    victim = v;
    bystander = w;
    victimBills = vBills;
    await setBanking(vendorIds.get(v)!, OLD, admin, max);
    await setBanking(vendorIds.get(w)!, OTHER, admin, max);
    const billIds = [vBills[0].Id, wBills[0].Id];
    const c = await api(t.url, 'POST', A, {
      body: { companyId, billIds, recipients: ['payables@approved-banking.test'] },
      token: admin,
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    id = c.body.data.id;
    const ok = await api(t.url, 'PUT', `${A}/${id}/approve`, {
      body: { approvedBills: billIds },
      token: mona,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const v1 = await outcome(id, 1);
    expect(v1.status).toBe('NACHA_GENERATED');
    expect((await entriesOf(v1)).map((e) => e.account).sort()).toEqual([
      OLD.accountNumber,
      OTHER.accountNumber,
    ]);

    // The same person changes the victim's account, then asks for a new file.
    const changeId = await setBanking(vendorIds.get(v)!, NEW, mona);
    const regen = await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: mona });
    expect(regen.status, JSON.stringify(regen.body)).toBe(200);
    const v2 = await outcome(id, 2);
    // The rest of the file went ahead: the bystander is paid, the victim is not, at either account.
    expect(v2.status).toBe('NACHA_GENERATED');
    expect((await entriesOf(v2)).map((e) => e.account)).toEqual([OTHER.accountNumber]);
    expect(v2.nachaProblems).toEqual([
      expect.objectContaining({ kind: 'vendor-banking-changed', vendorName: expect.any(String) }),
    ]);
    expect(v2.nachaProblems[0].message.startsWith(`${v2.nachaProblems[0].vendorName}: `)).toBe(true);
    expect(v2.nachaProblems[0].message).toContain('bank details change pending');
    expect(v2.nachaProblems[0].message).toContain('the rest of the file went ahead');
    expect(v2.nachaSkippedBills).toEqual([
      expect.objectContaining({
        billId: vBills[0].Id,
        reason: expect.stringContaining('bank details change pending'),
      }),
    ]);
    // The "file ready" mail says whom the file leaves out, and why; never a full number.
    const mail = await until('the file-ready mail naming the held vendor', async () =>
      catcher
        .messages()
        .find(
          (m) =>
            /NACHA file ready/.test(m.subject) && (m.html ?? '').includes(id) && m.text.includes('Held out'),
        ),
    );
    expect(mail.text).toContain('bank details change pending');
    expect(`${mail.text}${mail.html}`).not.toContain(NEW.accountNumber);
    // Nothing to approve again yet: the change waits for its own decision.
    expect(v2.paymentProblem).toMatchObject({ kind: 'nacha', retry: null });
    // Where money is decided, the pending change shows with who must act.
    const flag = v2.bankingFlags.find((f: { changeId: string }) => f.changeId === changeId);
    expect(flag).toMatchObject({
      kind: 'pending-change',
      qbVendorId: v,
      changedById: monaId,
      changedByName: 'Mona Staff',
      accountNumber: '****6666',
      previousAccountNumber: '****1004',
    });
    expect(flag.awaiting).toContain('other than Mona Staff');
    const row = (await api(t.url, 'GET', `${A}?companyId=${companyId}`, { token: user })).body.data.find(
      (r: { id: string }) => r.id === id,
    );
    expect(row.bankingFlags.map((f: { kind: string }) => f.kind)).toContain('pending-change');
    expect(row.bankingReview).toBeNull();
  }, 300_000);

  it('a second person approves the change: still held until the approval is approved again', async () => {
    const pending = (await api(t.url, 'GET', `/api/vendors/${vendorIds.get(victim)}`, { token: max })).body
      .data.pendingBankingChange;
    const approved = await api(
      t.url,
      'POST',
      `/api/vendors/${vendorIds.get(victim)}/banking-changes/${pending.changeId}/approve`,
      { body: { reason: 'Called the vendor back on the number on file' }, token: max },
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: mona })).status).toBe(200);
    const v3 = await outcome(id, 3);
    expect((await entriesOf(v3)).map((e) => e.account)).toEqual([OTHER.accountNumber]);
    expect(v3.nachaProblems[0].message).toContain('bank details changed after approval: approve again');
    expect(v3.paymentProblem).toMatchObject({ kind: 'nacha', retry: 'approve-again' });
    // The detail shows the approver what was approved and what is live, masked.
    expect(v3.bankingToApproveAgain).toBe(true);
    expect(v3.bankingReview).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          qbVendorId: victim,
          state: 'changed',
          approvedAccountNumber: '****1004',
          liveAccountNumber: '****6666',
          liveRoutingNumber: '*****0021',
        }),
        expect.objectContaining({ qbVendorId: bystander, state: 'as-approved' }),
      ]),
    );
    // A recent change, flagged with who made it and who approved it (the set-up's entries are recent too).
    expect(v3.bankingFlags.filter((f: { changedById: number }) => f.changedById === monaId)).toEqual([
      expect.objectContaining({
        kind: 'recent-change',
        qbVendorId: victim,
        changedByName: 'Mona Staff',
        verifiedBy: 'second-person',
        verifiedByName: 'Max Staff',
        flaggedUntil: expect.any(String),
      }),
    ]);
    expect(v3.bankingFlags.some((f: { kind: string }) => f.kind !== 'recent-change')).toBe(false);
    // /bills flags the victim's other open bill before anyone picks it.
    const bills = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, { token: max });
    expect(bills.status, JSON.stringify(bills.body)).toBe(200);
    const other = bills.body.data.find((b: { id: string }) => b.id === victimBills[1].Id);
    expect(other.bankingFlags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'recent-change', qbVendorId: victim, changedByName: 'Mona Staff' }),
      ]),
    );
  }, 300_000);

  it('approve again is refused to a USER, and changes nothing', async () => {
    const r = await api(t.url, 'POST', `${A}/${id}/approve-again`, { token: user });
    expect(r.status).toBe(403);
    expect((await detail(id)).bankingToApproveAgain).toBe(true);
  });

  it('approved again, Regenerate pays the new account; a second approve again has nothing to do', async () => {
    const r = await api(t.url, 'POST', `${A}/${id}/approve-again`, { token: max });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toContain('****6666');
    expect(r.body.data.bankingToApproveAgain).toBe(false);
    const again = await gql(
      t.url,
      'mutation($id: String!) { approveBankingAgain(id: $id) { message } }',
      { id },
      max,
    );
    expect(again.errors?.[0].message).toMatch(/Nothing to approve again/);
    expect((await api(t.url, 'POST', `${A}/${id}/regenerate-nacha`, { token: mona })).status).toBe(200);
    const v4 = await outcome(id, 4);
    expect(v4.nachaProblems).toEqual([]);
    expect(v4.paymentProblem).toBeNull();
    const entries = await entriesOf(v4);
    expect(entries.map((e) => e.account).sort()).toEqual([NEW.accountNumber, OTHER.accountNumber].sort());
    expect(entries.find((e) => e.account === NEW.accountNumber)!.routing).toBe(NEW.routingNumber);
    // On record: the approval's history names the tails approved, and approved again.
    const history = (await api(t.url, 'GET', `${A}/${id}/history`, { token: admin })).body.data as Array<{
      action: string;
      details: string | null;
    }>;
    expect(history.find((h) => h.action === 'Approved')?.details).toContain('account ****1004');
    expect(history.find((h) => h.action === 'Bank details approved again')?.details).toContain(
      'account ****1004 → ****6666',
    );
    // No full account number on the approval's stream: tails and keyed fingerprints only.
    const events = await sql<{ data: string }>(
      `SELECT data::text AS data FROM es_events WHERE stream_id = $1`,
      [approvalStreamId(id)],
    );
    for (const e of events) {
      expect(e.data).not.toContain(NEW.accountNumber);
      expect(e.data).not.toContain(OLD.accountNumber);
    }
  }, 300_000);
});

describe('the operations page', () => {
  it('names one user changing more than K vendors in an hour, and a change followed by a payment', async () => {
    // Mona changes K + 1 vendors' banking at once (a batch): each is held, and the burst is named.
    const others = [...vendorIds.values()].slice(-(RAPID_CHANGE_THRESHOLD + 1));
    const batch = await api(t.url, 'POST', '/api/vendors/batch-update-banking', {
      body: {
        updates: others.map((vendorId, i) => ({
          vendorId,
          routingNumber: '011000015',
          accountNumber: `9990001000${i}`,
          accountType: 'checking',
        })),
      },
      token: mona,
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.data.held).toBe(others.length);
    const ops = await until('the patterns on the operations page', async () => {
      const r = await api(t.url, 'GET', '/api/operations', { token: admin });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const p = r.body.data.bankingPatterns;
      return p?.rapidChanges.some((x: { userId: number }) => x.userId === monaId) ? p : null;
    });
    expect(ops.rapidChangeThreshold).toBe(RAPID_CHANGE_THRESHOLD);
    const burst = ops.rapidChanges.find((x: { userId: number }) => x.userId === monaId);
    expect(burst).toMatchObject({ userName: 'Mona Staff', companyIds: [companyId] });
    expect(burst.vendorCount).toBeGreaterThan(RAPID_CHANGE_THRESHOLD);
    // The victim's change went live and a file paid the new account within the day.
    const paid = ops.changedThenPaid.find(
      (x: { paidAccountNumber: string }) => x.paidAccountNumber === '****6666',
    );
    expect(paid).toMatchObject({
      changedByName: 'Mona Staff',
      verifiedBy: 'second-person',
      accountNumber: '****6666',
    });
    // GraphQL answers the same, to an ADMIN only.
    const q =
      '{ operations { bankingPatterns { rapidChangeThreshold rapidChanges { userId vendorCount } changedThenPaid { changeId paidAccountNumber } } } }';
    const g = await gql(t.url, q, {}, admin);
    expect(g.errors).toBeUndefined();
    expect(g.data.operations.bankingPatterns.rapidChanges.map((x: { userId: number }) => x.userId)).toContain(
      monaId,
    );
    expect((await gql(t.url, q, {}, mona)).errors?.[0]).toBeDefined();
  }, 180_000);
});
