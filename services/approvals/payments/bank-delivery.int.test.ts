// The approval's `bankDelivery`, end to end on Postgres, Redis, the workers, the QuickBooks simulator
// and the bank sandbox (a real SFTP server): null for a file of a company that sends by hand and in the
// list; once the company sends over SFTP, the file made at approval waits for its cut-off window
// (GraphQL and the REST detail say so, with the window); after Send now it is delivered, with its
// name, size and sha256, and then acknowledged by the bank.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, gql, signIn } from '../../../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  readyToPay,
  syncVendors,
} from '../../../test/support/payments.js';
import { type BankSandbox, startBankSandbox } from '../../../tools/bank-sandbox/server.js';
import type { QbBill, Realm } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { BANK_QUEUE } from '../../../workers/payments/delivery.js';
import { parseAchFile } from '../../nacha/parser.js';
import { deliverFile, pollBank } from '../../payments/delivery.js';
import { queuePrefix } from '../../shared/queues.js';
import { redisOptions } from '../../shared/redis.js';

const A = '/api/bill-approval/approvals';
const ODFI = NACHA_CONFIG.bankRoutingNumber;
const PASSWORD = 'bank-sandbox-pass-91';
const qbApp = { clientId: 'billflow-bank-delivery', clientSecret: 'bank-delivery-secret-5151' };

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

const DELIVERY = `status fileName version windowAt deliveredAt size sha256 foundThere bankAnswer bankText failure`;
const restDetail = async (id: string) => {
  const r = await api(t.url, 'GET', `${A}/${id}`, { token: admin });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const gqlDelivery = async (id: string) => {
  const r = await gql(
    t.url,
    `query ($id: String!) { approval(id: $id) { id status bankDelivery { ${DELIVERY} } } }`,
    { id },
    admin,
  );
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data.approval.bankDelivery;
};

const inboxOfBank = async () => {
  const r = await fetch(`${bank.hooksUrl}/__bank/files?routing=${ODFI}`);
  expect(r.status).toBe(200);
  const body = (await r.json()) as {
    odfis: Array<{ inbox: Array<{ name: string; size: number; sha256: string }> }>;
  };
  return body.odfis[0]?.inbox ?? [];
};

/** One open bill of a vendor not used before, its vendor's banking set; approved; its file made. */
async function approvedFile() {
  const bill = realm.bills.find(
    (b: QbBill) => b.Balance > 0 && vendorIds.has(b.VendorRef.value) && !used.has(b.VendorRef.value),
  )!;
  used.add(bill.VendorRef.value);
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(bill.VendorRef.value)}/banking`, {
    body: {
      routingNumber: '011000015',
      accountNumber: `73000${used.size}0001`,
      accountType: 'checking',
      bankName: 'BofA',
    },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds: [bill.Id], recipients: ['ap@bank-delivery.test'] },
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
  return { id, fileName: d.nachaFileName as string };
}

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(tmpdir(), 'billflow-bank-delivery-'));
  bank = await startBankSandbox({
    stateDir,
    users: [{ routing: ODFI, username: 'juniper-ap', password: PASSWORD }],
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
    name: 'Juniper Joinery',
  }));
  const account = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { paymentAccount: account.Id });
  for (const v of await syncVendors(t.url, admin, companyId)) vendorIds.set(v.qbVendorId, v.id);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
  await bank?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('the approval’s bankDelivery', () => {
  it('is null for a company that sends by hand, then follows an SFTP file from its window to the bank', async () => {
    // By hand: the file is made and waits for a person; there is no delivery to speak of.
    const byHand = await approvedFile();
    expect((await restDetail(byHand.id)).bankDelivery).toBeNull();
    expect(await gqlDelivery(byHand.id)).toBeNull();

    const set = await api(t.url, 'PUT', `/api/company/companies/${companyId}/bank-connection`, {
      body: {
        mode: 'sftp',
        host: '127.0.0.1',
        port: bank.sftpPort,
        username: 'juniper-ap',
        password: PASSWORD,
        hostKeyFingerprint: bank.hostKeyFingerprint(),
        windows: ['10:15', '14:30', '16:30'],
      },
      token: admin,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    // Over SFTP: the file made at approval waits for the company's next window.
    const { id, fileName } = await approvedFile();
    const waiting = await until('the file scheduled for its window', async () => {
      const d = await gqlDelivery(id);
      return d?.status === 'scheduled' ? d : null;
    });
    expect(waiting).toMatchObject({
      fileName,
      version: 1,
      deliveredAt: null,
      size: null,
      sha256: null,
      bankAnswer: null,
      failure: null,
    });
    expect(Date.parse(waiting.windowAt)).toBeGreaterThan(Date.now());
    // The REST detail answers the same field; the list leaves it out, as it does the other detail fields.
    expect((await restDetail(id)).bankDelivery).toEqual(waiting);
    const list = await api(t.url, 'GET', `${A}?companyId=${companyId}&limit=50`, { token: admin });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const row = list.body.data.find((a: { id: string }) => a.id === id);
    expect(row).toBeTruthy();
    expect(row.bankDelivery).toBeNull();

    // Send now (the mutation the card calls): delivered by the system, its facts on record.
    const now = await gql(
      t.url,
      'mutation ($c: Int!) { sendWaitingFilesNow(companyId: $c) }',
      { c: companyId },
      admin,
    );
    expect(now.errors, JSON.stringify(now.errors)).toBeUndefined();
    expect(now.data.sendWaitingFilesNow).toBe('1 waiting file will be sent now');
    const sent = await until('the file delivered', async () => {
      const d = await gqlDelivery(id);
      return d?.status === 'delivered' ? d : null;
    });
    expect(sent).toMatchObject({ fileName, foundThere: false, bankAnswer: null, failure: null });
    expect(sent.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.size).toBeGreaterThan(0);
    expect(Date.parse(sent.deliveredAt)).toBeLessThanOrEqual(Date.now());
    // What the field says is what the bank holds.
    const there = (await inboxOfBank()).find((f) => f.name === fileName);
    expect(there).toMatchObject({ size: sent.size, sha256: sent.sha256 });

    // The bank's acknowledgement, read from its outbox.
    await pollBank(t.started.app, companyId, {});
    const acknowledged = await until('the acknowledgement on the detail', async () => {
      const d = await restDetail(id);
      return d.bankDelivery?.bankAnswer === 'acknowledged' ? d : null;
    });
    expect(acknowledged.bankDelivery.bankText).toBeTruthy();
    // The file of the company that sent by hand was never scheduled, so never sent.
    expect((await restDetail(byHand.id)).bankDelivery).toBeNull();
    expect((await inboxOfBank()).map((f) => f.name)).toEqual([fileName]);
  });

  it('sends the approvals made for one window as one file, a batch each, uploaded once and acknowledged for each', async () => {
    const before = (await inboxOfBank()).length;
    const made = [await approvedFile(), await approvedFile(), await approvedFile()];
    // One shared file for the window (decision 0040): one name, each approval its own batch.
    expect(new Set(made.map((m) => m.fileName)).size).toBe(1);
    const batches = await Promise.all(
      made.map(
        async (m) =>
          (await restDetail(m.id)).nachaFiles.find((f: { current: boolean }) => f.current).batchNumber,
      ),
    );
    expect(batches).toEqual([1, 2, 3]);
    for (const m of made)
      await until('scheduled', async () => (await gqlDelivery(m.id))?.status === 'scheduled');
    const now = await gql(
      t.url,
      'mutation ($c: Int!) { sendWaitingFilesNow(companyId: $c) }',
      { c: companyId },
      admin,
    );
    expect(now.errors, JSON.stringify(now.errors)).toBeUndefined();
    const sent = [];
    for (const m of made)
      sent.push(
        await until('delivered', async () => {
          const d = await gqlDelivery(m.id);
          return d?.status === 'delivered' ? d : null;
        }),
      );
    // The bank holds one file more, the one every approval names, with their three batches.
    const inbox = await inboxOfBank();
    expect(inbox).toHaveLength(before + 1);
    const there = inbox.find((f) => f.name === made[0].fileName)!;
    for (const d of sent)
      expect(d).toMatchObject({ fileName: there.name, size: there.size, sha256: there.sha256 });
    const r = await fetch(`${t.url}${(await restDetail(made[0].id)).nachaFileUrl}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const text = await r.text();
    expect(createHash('sha256').update(text, 'latin1').digest('hex')).toBe(there.sha256);
    expect(parseAchFile(text).batches.map((b) => b.header.batchNumber)).toEqual([1, 2, 3]);
    // Each approval is at the bank, by the system, and the bank's answer reaches each one.
    for (const m of made)
      await until('bank uploaded', async () => (await restDetail(m.id)).status === 'BANK_UPLOADED');
    await pollBank(t.started.app, companyId, {});
    for (const m of made)
      await until(
        'acknowledged',
        async () => (await restDetail(m.id)).bankDelivery?.bankAnswer === 'acknowledged',
      );
  });

  it('gives an approval whose delivery was scheduled after its shared file went the bank’s answer all the same', async () => {
    const fileIdOf = async (id: string) =>
      (await restDetail(id)).nachaFiles.find((f: { current: boolean }) => f.current).fileId as string;
    const first = await approvedFile();
    await until('the first scheduled', async () => (await gqlDelivery(first.id))?.status === 'scheduled');
    // The bank queue is held: the late approval's file is made and placed, but its delivery waits.
    const bankQueue = new Queue(BANK_QUEUE, {
      connection: redisOptions(t.started.app.config.REDIS_URL),
      prefix: queuePrefix(t.started.app.config.REDIS_PREFIX),
    });
    await bankQueue.pause();
    let late: { id: string; fileName: string };
    try {
      late = await approvedFile();
      expect(late.fileName).toBe(first.fileName);
      expect(await deliverFile(t.started.app, first.id, await fileIdOf(first.id), {})).toBe('delivered');
      await pollBank(t.started.app, companyId, {});
      await until('the first acknowledged', async () => {
        return (await restDetail(first.id)).bankDelivery?.bankAnswer === 'acknowledged';
      });
    } finally {
      await bankQueue.resume();
      await bankQueue.close();
    }
    await until('the late one scheduled', async () => Boolean((await gqlDelivery(late.id))?.status));
    // Its window comes (called here as its delayed job would): the file is there, its answer given.
    const outcome = await deliverFile(t.started.app, late.id, await fileIdOf(late.id), {});
    expect(['found-there', 'stale']).toContain(outcome);
    const d = await until('the late one acknowledged', async () => {
      const x = await restDetail(late.id);
      return x.bankDelivery?.bankAnswer === 'acknowledged' ? x : null;
    });
    expect(d.bankDelivery.fileName).toBe(first.fileName);
    expect((await inboxOfBank()).filter((f) => f.name === first.fileName)).toHaveLength(1);
  });
});
