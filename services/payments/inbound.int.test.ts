// What the bank sends back, read end to end on Postgres, Redis, the workers and the QuickBooks
// simulator: an approval's NACHA file is made (its entries take traces never used at the ODFI), the
// bank's return and notification-of-change files (written by the bank sandbox's own writer from that
// file's entries) are uploaded by an ADMIN, matched by trace and recorded once; the same file twice
// changes nothing; an entry that matches nothing is parked; moov-io/ach's invalid return and NOC
// files are refused with their reasons and leave nothing behind; only ADMIN reads a bank file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  readyToPay,
  syncVendors,
} from '../../test/support/payments.js';
import { writeAnswerFile } from '../../tools/bank-sandbox/writer.js';
import { uploadInboundFile } from '../../tools/inbound.js';
import type { QbBill } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { entryStreamId } from './entry-decider.js';

const A = '/api/bill-approval/approvals';
const INBOUND = '/api/payments/inbound-files';
const RETURNS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach/returns');
const qbApp = { clientId: 'billflow-inbound', clientSecret: 'inbound-secret-4242' };
const PASSWORD = 'Moderator-pass-123!';

let sim: QboSandbox;
let t: TestApp;
let admin = '';
let moderator = '';
let companyId = 0;
let approvalId = '';
/** The approval's file, line by line. */
let fileLines: string[] = [];
const accounts = ['7100000003', '7100000101', '7100000777'];

async function upload(token: string, fileName: string, content: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), fileName);
  const r = await fetch(`${t.url}${INBOUND}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: r.status, body: (await r.json()) as any };
}

/** The file's batch header and the entry line paying `account`. */
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

/** The read model's row for a trace once `ready` holds (the projection follows the log). */
async function entryRow(trace: string, ready: (row: any) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = await t.started.app.db
      .selectFrom('payment_entries')
      .selectAll()
      .where('trace_number', '=', trace)
      .executeTakeFirst();
    if (row && ready(row)) return row;
    if (Date.now() > deadline)
      throw new Error(`the entry ${trace} did not reach its state: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const entryEvents = async (trace: string) =>
  (await t.started.app.store.readStream(entryStreamId(trace))).events ?? [];

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    body: { email: 'mo@inbound.test', password: PASSWORD, role: 'MODERATOR', firstName: 'Mo' },
    token: admin,
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  moderator = (await signIn(t.url, 'mo@inbound.test', PASSWORD)).tokens.accessToken;
  const connected = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Returned Rugs',
  });
  companyId = connected.companyId;
  const bank = connected.realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  const vendorIds = new Map((await syncVendors(t.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  // One open bill of each of three vendors, each vendor given its own account.
  const bills: QbBill[] = [];
  for (const b of connected.realm.bills)
    if (
      b.Balance > 0 &&
      vendorIds.has(b.VendorRef.value) &&
      !bills.some((x) => x.VendorRef.value === b.VendorRef.value)
    )
      bills.push(b);
  expect(bills.length).toBeGreaterThanOrEqual(3);
  bills.length = 3;
  for (const [i, b] of bills.entries()) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(b.VendorRef.value)}/banking`, {
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
    body: { companyId, billIds, recipients: ['ap@inbound.test'] },
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
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe("the bank's files, read back", () => {
  it('gives every entry of a file a trace of its own at the ODFI, recorded on the approval', async () => {
    const traces = fileLines.filter((l) => l.startsWith('6')).map((l) => l.slice(79, 94));
    expect(new Set(traces).size).toBe(traces.length);
    for (const tr of traces) expect(tr.startsWith(NACHA_CONFIG.bankRoutingNumber.slice(0, 8))).toBe(true);
    const rows = await Promise.all(traces.slice(0, 3).map((tr) => entryRow(tr, () => true)));
    expect(rows.every((r) => r.approval_id === approvalId)).toBe(true);
    expect(rows.map((r) => r.account_last4).sort()).toEqual(accounts.map((x) => x.slice(-4)).sort());
  });

  it('refuses a MODERATOR and a file that is not an ACH file, changing nothing', async () => {
    const ret = answerFile('return', [{ ...original(accounts[0]), answer: { kind: 'return', code: 'R03' } }]);
    expect((await upload(moderator, 'RET.ach', ret)).status).toBe(403);
    const bad = await upload(admin, 'notes.ach', 'hello\n');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/not a valid ACH return file/);
    for (const name of [
      'web-invalidNOCFile.ach',
      'pos-invalidReturnFile.ach',
      'return-no-batch-controls.ach',
    ]) {
      const r = await upload(admin, name, readFileSync(path.join(RETURNS, 'invalid', name), 'latin1'));
      expect(r.status, name).toBe(400);
      expect(r.body.message, name).toMatch(/line \d+|FileHeader|FileControl/);
    }
    expect(await t.started.app.db.selectFrom('ach_inbound_files').selectAll().execute()).toEqual([]);
  });

  it('applies a return once: the entry is returned with its code, and the same file again changes nothing', async () => {
    const item = original(accounts[0]);
    const trace = item.entry.slice(79, 94);
    const ret = answerFile('return', [{ ...item, answer: { kind: 'return', code: 'R03' } }]);
    const first = await upload(admin, 'RET_1.ach', ret);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({
      appliedNow: true,
      returns: 1,
      applied: 1,
      alreadyApplied: 0,
      parked: [],
    });
    const again = await upload(admin, 'RET_1-copy.ach', ret);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ appliedNow: false, fileId: first.body.data.fileId, applied: 1 });
    expect(await entryEvents(trace)).toHaveLength(1);
    const row = await entryRow(trace, (r) => r.status === 'returned');
    expect(row).toMatchObject({ status: 'returned', return_code: 'R03', return_action: 'block-account' });
    expect(row.return_description).toMatch(/No Account|Unable to Locate/i);
    // The file is kept sealed: its account numbers are nowhere in plain.
    const kept = await t.started.app.pool.query('SELECT ciphertext FROM ach_inbound_contents');
    expect(kept.rows).toHaveLength(1);
    expect(kept.rows[0].ciphertext.toString('latin1')).not.toContain(accounts[0]);
  });

  it('records a notification of change with the corrected account sealed, and parks what matches nothing', async () => {
    const item = original(accounts[1]);
    const trace = item.entry.slice(79, 94);
    const stray = { ...original(accounts[2]) };
    stray.entry = `${stray.entry.slice(0, 79)}${NACHA_CONFIG.bankRoutingNumber.slice(0, 8)}9999999`;
    const noc = answerFile('noc', [
      { ...item, answer: { kind: 'noc', code: 'C01', correctedAccountNumber: '7100000102' } },
      { ...stray, answer: { kind: 'noc', code: 'C01', correctedAccountNumber: '7100000778' } },
    ]);
    const r = await upload(admin, 'COR_1.ach', noc);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ corrections: 2, applied: 1 });
    expect(r.body.data.parked).toEqual([
      expect.objectContaining({ kind: 'correction', code: 'C01', reason: expect.stringMatching(/no entry/) }),
    ]);
    const row = await entryRow(trace, (r) => r.change_code !== null);
    expect(row).toMatchObject({ status: 'sent', change_code: 'C01', corrected_account_last4: '0102' });
    const raw = await t.started.app.pool.query(
      'SELECT data::text AS data FROM es_events WHERE stream_id = $1',
      [entryStreamId(trace)],
    );
    expect(raw.rows).toHaveLength(1);
    expect(raw.rows[0].data).not.toContain('7100000102');
    const list = await api(t.url, 'GET', INBOUND, { token: moderator });
    expect(list.status).toBe(200);
    expect(list.body.data.map((f: { fileName: string; status: string }) => [f.fileName, f.status])).toEqual([
      ['COR_1.ach', 'applied'],
      ['RET_1.ach', 'applied'],
    ]);
  });

  it("reads a real bank's file from the command line: its entries are none of Billflow's, so all are parked", async () => {
    const file = path.join(RETURNS, 'valid', 'return-WEB.ach');
    const env = { BILLFLOW_URL: t.url, ADMIN_EMAIL: t.admin.email, ADMIN_PASSWORD: t.admin.password };
    const r = await uploadInboundFile(file, env);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ appliedNow: true, returns: 2, applied: 0 });
    expect(r.body.data.parked.map((p: { code: string }) => p.code).sort()).toEqual(['R01', 'R03']);
    expect((await uploadInboundFile(file, env)).body.data.appliedNow).toBe(false);
    const wrong = await uploadInboundFile(file, { ...env, ADMIN_PASSWORD: 'not-the-password-1!' }).catch(
      (e: Error) => e,
    );
    expect(String(wrong)).toMatch(/Sign-in as .* refused/);
  });
});
