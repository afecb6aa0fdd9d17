// The bank's answers reach the vendor, end to end on Postgres, Redis, the workers and the QuickBooks
// simulator. The payments module's events are appended to an entry's stream as its apply would, and
// the vendors process manager's jobs act on them: a return blocks the vendor (REST shows it, the
// same return again and the job run again change nothing, a new live account lifts it), a blocked
// vendor is named and not paid by a file, a C01 notification of change is a held change that only an
// ADMIN approves and the next file pays, a C05 keeps the numbers and changes the type.
import { createHash } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../test/support/payments.js';
import type { QbBill } from '../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { reactionJobId } from '../../workers/process-manager.js';
import { vendorMailProcessManager } from '../../workers/vendors/banking-mail.js';
import { vendorsJobHandlers } from '../../workers/vendors/reactions.js';
import { parseAchFile } from '../nacha/parser.js';
import { queuePrefix } from '../shared/queues.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-bank-answers', clientSecret: 'bank-answers-secret-4242' };
const PASSWORD = 'Moderator-pass-123!';
const ROUTING = '011000015';

let sim: QboSandbox;
let t: TestApp;
let vendorsQueue: Queue;
let admin = '';
let moderator = '';
let companyId = 0;
/** Synced vendors with open bills, each used by one test. */
const pool: Array<{ id: number; qbVendorId: string; bills: QbBill[] }> = [];

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const vendor = async (id: number, token = admin) =>
  (await api(t.url, 'GET', `/api/vendors/${id}`, { token })).body.data;

async function setBanking(id: number, accountNumber: string, accountType = 'checking') {
  const r = await api(t.url, 'PUT', `/api/vendors/${id}/banking`, {
    body: { routingNumber: ROUTING, accountNumber, accountType, bankName: 'BofA' },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** An entry's stream as the payments module's apply writes it: the event as given, sealed as declared. */
const entryDecider = {
  initialState: () => null,
  evolve: (s: null) => s,
  decide: (e: PaymentsEvent) => [e],
  streamId: (trace: string) => `achentry-${trace}`,
};

let traces = 0;
const nextTrace = () =>
  `0110000${String(Date.now() % 1e5).padStart(5, '0')}${String(++traces).padStart(3, '0')}`;
const fileId = (name: string) => createHash('sha256').update(name).digest('hex');

type EntryEvent = Extract<PaymentsEvent, { type: 'PaymentEntryReturned' | 'PaymentEntryCorrectionReceived' }>;

/** Appends the event to its entry's stream; answers the stored event the vendors process manager reads. */
async function plant(event: EntryEvent) {
  const stream = entryDecider.streamId(event.data.traceNumber);
  await t.started.app.commands.handle(entryDecider, stream, event, { userId: null });
  const { events } = await t.started.app.store.readStream(stream);
  return events[events.length - 1];
}

/** The vendors job for a stored event, once it has run: its outcome. */
async function reaction(stored: { id: string }) {
  const jobId = reactionJobId('vendors', stored);
  return until(`the vendors job ${jobId}`, async () => {
    const job = await vendorsQueue.getJob(jobId);
    return job && (await job.getState()) === 'completed' ? (job.returnvalue as { recorded: string[] }) : null;
  });
}

const returned = (v: (typeof pool)[number], trace: string, accountLast4: string): EntryEvent => ({
  type: 'PaymentEntryReturned',
  data: {
    traceNumber: trace,
    approvalId: 'a-returned',
    companyId,
    qbVendorId: v.qbVendorId,
    vendorName: 'the vendor',
    amountCents: 12_500,
    accountLast4,
    fileName: 'billflow.ach',
    returnCode: 'R03',
    description: 'No account/unable to locate account',
    action: 'block-account',
    inboundFileId: fileId(`returns-${trace}`),
    at: new Date().toISOString(),
  },
});

const corrected = (
  v: (typeof pool)[number],
  trace: string,
  changeCode: string,
  description: string,
  data: { accountNumber?: string; accountType?: 'checking' | 'savings' },
): EntryEvent => ({
  type: 'PaymentEntryCorrectionReceived',
  data: {
    traceNumber: trace,
    approvalId: 'a-corrected',
    companyId,
    qbVendorId: v.qbVendorId,
    vendorName: 'the vendor',
    changeCode,
    description,
    correctedAccountNumber: data.accountNumber ?? null,
    correctedRoutingNumber: null,
    correctedAccountType: data.accountType ?? null,
    correctedName: null,
    correctedAccountLast4: data.accountNumber?.slice(-4) ?? null,
    correctedRoutingLast4: null,
    dueBy: '2026-12-15',
    inboundFileId: fileId(`noc-${trace}`),
    at: new Date().toISOString(),
  },
});

const streamOf = (v: (typeof pool)[number]) => vendorStreamId(companyId, v.qbVendorId);
const eventsOf = async (v: (typeof pool)[number], type: string) =>
  (await t.started.app.store.readStream(streamOf(v))).events.filter((e) => e.type === type);
const liveBanking = async (v: (typeof pool)[number]) =>
  (await t.started.app.commands.load(vendorDecider, streamOf(v))).state.banking;

/** Approves these bills at once: the file is asked for. */
async function approve(bills: QbBill[]) {
  const billIds = bills.map((b) => b.Id);
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['ap@answers.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token: admin });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return id;
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  vendorsQueue = new Queue('vendors', {
    connection: t.started.app.redis,
    prefix: queuePrefix(t.env.REDIS_PREFIX),
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    body: { email: 'mo@answers.test', password: PASSWORD, role: 'MODERATOR', firstName: 'Mo' },
    token: admin,
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  moderator = (await signIn(t.url, 'mo@answers.test', PASSWORD)).tokens.accessToken;
  const connected = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Answered Awnings',
  });
  companyId = connected.companyId;
  // The moderator works on the company (staff scope), so a refusal is the NOC's rule, not the scope.
  const assigned = await api(t.url, 'PUT', `/api/company/companies/${companyId}/assignments`, {
    body: { accountantId: reg.body.data.id },
    token: admin,
  });
  expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
  const bank = connected.realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  // The control off, as payment tests have it: a notification of change is held all the same.
  await readyToPay(t.url, admin, companyId, { paymentAccount: bank.Id });
  const synced = new Map((await syncVendors(t.url, admin, companyId)).map((v) => [v.qbVendorId, v]));
  const open = new Map<string, QbBill[]>();
  for (const b of connected.realm.bills)
    if (b.Balance > 0 && synced.get(b.VendorRef.value)?.active)
      open.set(b.VendorRef.value, [...(open.get(b.VendorRef.value) ?? []), b]);
  for (const [qbVendorId, bills] of open) pool.push({ id: synced.get(qbVendorId)!.id, qbVendorId, bills });
  expect(pool.length).toBeGreaterThanOrEqual(5);
}, 120_000);

afterAll(async () => {
  await vendorsQueue?.close();
  await t?.stop();
  await sim?.close();
});

describe('a return from the bank', () => {
  it('blocks the vendor once, shows why and since when, and a new live account lifts it', async () => {
    const v = pool[0];
    await setBanking(v.id, '7100000101');
    const trace = nextTrace();
    const first = await plant(returned(v, trace, '0101'));
    expect((await reaction(first)).recorded).toEqual(['VendorBankingBlocked']);
    const message = 'Payments blocked: R03 No account/unable to locate account — change the bank details';
    const blocked = await vendor(v.id);
    expect(blocked.bankingBlock).toMatchObject({ returnCode: 'R03', traceNumber: trace, message });
    expect(Date.parse(blocked.bankingBlock.since)).not.toBeNaN();
    const list = (await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token: admin }))
      .body.data as Array<{ id: number; bankingBlock: { message: string } | null }>;
    expect(list.find((r) => r.id === v.id)?.bankingBlock?.message).toBe(message);

    // The same return again, and its job run again: nothing more on the vendor.
    const again = await plant(returned(v, trace, '0101'));
    expect((await reaction(again)).recorded).toEqual([]);
    await vendorsJobHandlers['block-vendor-banking'](t.started.app, {
      id: reactionJobId('vendors', first),
      data: (await vendorsQueue.getJob(reactionJobId('vendors', first)))!.data,
    } as unknown as Job);
    expect(await eventsOf(v, 'VendorBankingBlocked')).toHaveLength(1);
    const history = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin })).body.data;
    expect(history[0]).toMatchObject({
      action: 'Payments blocked',
      details: expect.stringContaining('ending 0101 (R03 No account/unable to locate account'),
    });

    // A changed account goes live (the control is off here): the block is lifted, on record.
    await setBanking(v.id, '7100000202');
    expect((await vendor(v.id)).bankingBlock).toBeNull();
    expect(await eventsOf(v, 'VendorBankingUnblocked')).toHaveLength(1);
    const after = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin })).body.data;
    expect(after[0]).toMatchObject({ action: 'Payments unblocked' });
  });

  it('a file never pays a blocked vendor: generation holds it out, named, and pays the others', async () => {
    const [blocked, other] = [pool[1], pool[2]];
    await setBanking(blocked.id, '7200000303');
    await setBanking(other.id, '7200000404');
    const stored = await plant(returned(blocked, nextTrace(), '0303'));
    expect((await reaction(stored)).recorded).toEqual(['VendorBankingBlocked']);
    const name = (await vendor(blocked.id)).name as string;
    const id = await approve([blocked.bills[0], other.bills[0]]);
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.status).toBe('NACHA_GENERATED');
    expect(d.nachaProblems).toContainEqual({
      kind: 'vendor-banking',
      vendorName: name,
      message: `${name}: payments blocked after the bank returned a payment (R03 No account/unable to locate account): change the bank details (held out of this file, its bills wait; the rest of the file went ahead)`,
    });
    // The blocked vendor's bill is left out of the file, the other's paid.
    expect(d.nachaSkippedBills.map((b: { billId: string }) => b.billId)).toEqual([blocked.bills[0].Id]);
  });
});

describe('a notification of change from the bank', () => {
  it('C01 makes a held change of the account, not told to the vendor, that only an ADMIN approves; the next file pays it', async () => {
    const v = pool[3];
    await setBanking(v.id, '7300000101');
    const stored = await plant(
      corrected(v, nextTrace(), 'C01', 'Incorrect DFI account number', { accountNumber: '7300000102' }),
    );
    expect((await reaction(stored)).recorded).toEqual(['VendorBankingChangeRequested']);
    const held = (await vendor(v.id)).pendingBankingChange;
    expect(held).toMatchObject({
      status: 'pending',
      source: 'noc',
      requestedById: null,
      accountNumber: expect.stringMatching(/^\*+0102$/),
      previousAccountNumber: expect.stringMatching(/^\*+0101$/),
      awaiting: expect.stringMatching(/an ADMIN must approve/),
    });
    expect((await liveBanking(v))?.accountNumber).toBe('7300000101');
    const history = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: admin })).body.data;
    expect(history[0].details).toMatch(
      /^Bank’s notification of change C01 \(Incorrect DFI account number\): account ending 0101 → ending 0102, due by 2026-12-15/,
    );
    // The vendor's contact is not asked to disown its own bank's correction.
    const [requested] = await eventsOf(v, 'VendorBankingChangeRequested');
    expect(vendorMailProcessManager.react(requested)).toEqual([]);

    const path = `/api/vendors/${v.id}/banking-changes/${held.changeId}/approve`;
    const byModerator = await api(t.url, 'POST', path, {
      body: { reason: 'The bank said so' },
      token: moderator,
    });
    expect(byModerator.status).toBe(403);
    expect(byModerator.body.error).toMatch(/ADMIN/);
    const byAdmin = await api(t.url, 'POST', path, { body: { reason: 'The bank said so' }, token: admin });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
    expect(byAdmin.body.data.accountNumber).toMatch(/^\*+0102$/);
    expect((await liveBanking(v))?.accountNumber).toBe('7300000102');

    const id = await approve([v.bills[0]]);
    const d = await nachaOutcome(t.url, admin, id);
    expect(d.nachaProblems).toEqual([]);
    const file = await fetch(`${t.url}${d.nachaFileUrl}`, { headers: { authorization: `Bearer ${admin}` } });
    // The download is the window's shared file: this approval's batch is the one its card names.
    const batch = d.nachaFiles.find((f: { current: boolean }) => f.current).batchNumber;
    const entries = parseAchFile(await file.text()).batches.find(
      (b) => b.header.batchNumber === batch,
    )!.entries;
    expect(entries.map((e) => e.dfiAccountNumber.trim())).toEqual(['7300000102']);
  });

  it('C05 keeps the numbers and changes the account type; the same notification again changes nothing', async () => {
    const v = pool[4];
    await setBanking(v.id, '7400000505');
    const trace = nextTrace();
    const event = corrected(v, trace, 'C05', 'Incorrect transaction code', { accountType: 'savings' });
    expect((await reaction(await plant(event))).recorded).toEqual(['VendorBankingChangeRequested']);
    expect((await reaction(await plant(event))).recorded).toEqual([]);
    const held = (await vendor(v.id)).pendingBankingChange;
    expect(held).toMatchObject({
      source: 'noc',
      accountType: 'savings',
      accountNumber: expect.stringMatching(/0505$/),
    });
    const r = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${held.changeId}/approve`, {
      body: { reason: 'Savings, says the bank' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await liveBanking(v)).toMatchObject({
      routingNumber: ROUTING,
      accountNumber: '7400000505',
      accountType: 'savings',
    });
  });
});
