// A company that sends its files over SFTP, end to end on Postgres, Redis, the workers, the QuickBooks
// simulator and the bank sandbox (a real SFTP server with its own checks): approving makes a file
// that waits for the company's cut-off window; Send now (the bank's trigger cut-off) delivers it with
// no person at the bank; the approval is then BANK_UPLOADED by the system with the file's name, size
// and sha256 on record, and the payment-completed link goes out; the bank's acknowledgement and its
// return file are read from its outbox; a file already in the bank's inbox is never sent again; a
// changed host key refuses the upload aloud, on the approval.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
import { type BankSandbox, startBankSandbox } from '../../tools/bank-sandbox/server.js';
import type { QbBill, Realm } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { bankAttention } from '../operations/bank-attention.js';
import { deliverFile, pollBank } from './delivery.js';

const A = '/api/bill-approval/approvals';
const ODFI = NACHA_CONFIG.bankRoutingNumber;
const PASSWORD = 'bank-sandbox-pass-77';
const qbApp = { clientId: 'billflow-delivery', clientSecret: 'delivery-secret-4242' };

let sim: QboSandbox;
let bank: BankSandbox;
let stateDir: string;
let t: TestApp;
let admin = '';
let companyId = 0;
let realm: Realm;
const vendorIds = new Map<string, number>();
const used = new Set<string>();

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 45_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hooks = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${bank.hooksUrl}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status, p).toBe(200);
  return (await r.json()) as any;
};
const bankFiles = async () =>
  (await hooks('GET', `/__bank/files?routing=${ODFI}`)).odfis[0] ?? { inbox: [], outbox: [] };
const detail = async (id: string) => (await api(t.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
const delivery = (approvalId: string) =>
  t.started.app.db
    .selectFrom('ach_deliveries')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .executeTakeFirst();

/** One open bill of a vendor not used before, its vendor given `account`; approved; its file made. */
async function approvedFile(account: string) {
  const bill = realm.bills.find(
    (b: QbBill) => b.Balance > 0 && vendorIds.has(b.VendorRef.value) && !used.has(b.VendorRef.value),
  )!;
  used.add(bill.VendorRef.value);
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(bill.VendorRef.value)}/banking`, {
    body: { routingNumber: '011000015', accountNumber: account, accountType: 'checking', bankName: 'BofA' },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds: [bill.Id], recipients: ['ap@delivery.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, {
    body: { approvedBills: [bill.Id] },
    token: admin,
  });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  const d = await nachaOutcome(t.url, admin, id);
  expect(d.status).toBe('NACHA_GENERATED');
  // The company sends over SFTP: the file waits for its window.
  const waiting = await until('the file scheduled for its window', async () => {
    const row = await delivery(id);
    return row?.status === 'scheduled' ? row : null;
  });
  expect(waiting.window_at!.getTime()).toBeGreaterThan(Date.now());
  return { id, fileName: waiting.file_name, fileId: waiting.file_id };
}

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(tmpdir(), 'billflow-bank-'));
  bank = await startBankSandbox({
    stateDir,
    users: [{ routing: ODFI, username: 'acme-ap', password: PASSWORD }],
    rules: [{ match: { accountSuffix: '0003' }, answer: { kind: 'return', code: 'R03' } }],
    answerDelaySeconds: 3600,
  });
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Sftp Sawmill',
  }));
  const account = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: account.Id });
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
  const set = await api(t.url, 'PUT', `/api/company/companies/${companyId}/bank-connection`, {
    body: {
      mode: 'sftp',
      host: '127.0.0.1',
      port: bank.sftpPort,
      username: 'acme-ap',
      password: PASSWORD,
      hostKeyFingerprint: bank.hostKeyFingerprint(),
      windows: ['10:15', '14:30', '16:30'],
    },
    token: admin,
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
  await bank?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('delivery to the bank over SFTP', () => {
  it('sends the file at Send now with no one at the bank, records it, and reads what the bank answers', async () => {
    const { id, fileName } = await approvedFile('7200000003');
    const now = await api(t.url, 'POST', `/api/payments/companies/${companyId}/send-now`, { token: admin });
    expect(now.status, JSON.stringify(now.body)).toBe(200);
    expect(now.body.data.files).toBe(1);
    const row = await until('the file delivered', async () => {
      const r = await delivery(id);
      return r?.status === 'delivered' ? r : null;
    });
    expect(row).toMatchObject({ file_name: fileName, found_there: false });
    expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The bank has it, once, and accepted it by its own checks.
    const files = await bankFiles();
    expect(files.inbox.map((f: { name: string }) => f.name)).toEqual([fileName]);
    expect(files.outbox.map((f: { name: string }) => f.name)).toContain(`${fileName}.ack`);
    // The approval: uploaded by the system, the file's facts on record, the next link sent.
    const d = await until('the bank upload on the approval', async () => {
      const x = await detail(id);
      return x.status === 'BANK_UPLOADED' ? x : null;
    });
    await until('the payment-completed link sent', async () => (await detail(id)).paymentLinkSentAt);
    expect(d.bankUploadReason).toBeNull();
    const history = (await api(t.url, 'GET', `${A}/${id}/history`, { token: admin })).body.data;
    expect(JSON.stringify(history)).toContain(`${fileName}, ${row.size} bytes`);

    // The bank's outbox: the acknowledgement, then (its rule for accounts ending 0003) a return.
    await pollBank(t.started.app, companyId, {});
    await until('the acknowledgement read', async () => (await delivery(id))?.bank_answer === 'acknowledged');
    await hooks('POST', '/__bank/answer-now');
    expect((await bankFiles()).outbox.some((f: { name: string }) => f.name.startsWith('RET_'))).toBe(true);
    await pollBank(t.started.app, companyId, {});
    const returned = await until('the return applied', async () => {
      const x = await detail(id);
      return x.bankPaymentState === 'RETURNED' ? x : null;
    });
    expect(returned.bankEntries[0]).toMatchObject({ returnCode: 'R03', status: 'returned' });
    // A file that is no ACH file at all (not even ASCII) is refused on record, never lost unseen.
    writeFileSync(path.join(stateDir, ODFI, 'outbox', 'BAD 1.ach'), 'h\u00e9llo\n');
    await pollBank(t.started.app, companyId, {});
    const refused = await until('the odd file refused on record', async () =>
      t.started.app.db
        .selectFrom('ach_inbound_files')
        .selectAll()
        .where('status', '=', 'refused')
        .executeTakeFirst(),
    );
    expect(refused).toMatchObject({ file_name: 'BAD 1.ach', source: 'sftp' });
    expect(refused.reasons.join(' ')).toMatch(/printable ASCII/);
    // What was read is gone from the outbox, so nothing is read twice.
    expect((await bankFiles()).outbox).toEqual([]);
    // Delivering again changes nothing: the file went once.
    expect(await deliverFile(t.started.app, id, row.file_id, {})).toBe('stale');
    expect((await bankFiles()).inbox).toHaveLength(1);
  });

  it('never sends twice a file that already landed, and refuses a changed host key aloud', async () => {
    const landed = await approvedFile('7200000011');
    // The file reached the bank earlier but its answer was lost: it is in the inbox by name and size.
    const stored = await t.started.app.achFiles.read(landed.id, landed.fileId);
    if (!stored || stored === 'gone') throw new Error('no stored file');
    await t.started.app.bankConnections.withSftp(
      companyId,
      (sftp) =>
        new Promise<void>((resolve, reject) =>
          sftp.writeFile(`/inbox/${landed.fileName}`, stored.text, (err: Error | null | undefined) =>
            err ? reject(err) : resolve(),
          ),
        ),
    );
    expect(await deliverFile(t.started.app, landed.id, landed.fileId, {})).toBe('found-there');
    await until('the delivery found there', async () => (await delivery(landed.id))?.found_there === true);
    const received = (await hooks('GET', '/__bank/received')).received.filter(
      (r: { name: string }) => r.name === landed.fileName,
    );
    expect(received).toHaveLength(1);

    const moved = await approvedFile('7200000029');
    await hooks('POST', '/__bank/rotate-host-key');
    expect(await deliverFile(t.started.app, moved.id, moved.fileId, {})).toBe('refused');
    const d = await until('the refusal on the approval', async () => {
      const x = await detail(moved.id);
      return x.paymentProblem ? x : null;
    });
    expect(d.status).toBe('NACHA_GENERATED');
    expect(d.paymentProblem.message).toMatch(/not sent to the bank: The bank's host key changed/);
    expect(d.paymentProblem.retry).toBe('regenerate');
    // The operations page counts it among the files that wait on a person.
    await until('the failed delivery on the operations page', async () => {
      const bank = await bankAttention(t.started.app);
      return (bank?.failedDeliveries ?? 0) >= 1;
    });
  });
});
