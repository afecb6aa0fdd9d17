// A busy day on the demo company, end to end on the product `npm start` runs (demo data, workers, the
// QuickBooks simulator): 200 approvals approved in one New York day are all paid. A company may send
// 36 files a day (file id modifiers A–Z, 0–9), so the approvals made for one cut-off window share its
// file, a batch each (decision 0040): every approval ends NACHA_GENERATED, its file a batch of a valid
// shared file under the number its card shows, and the day uses a handful of modifiers, not 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAchFile } from '../services/nacha/parser.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { type QboSandbox, startQboSandbox } from './qbo-sandbox/server.js';
import { DEMO_SECOND_APPROVAL_THRESHOLD, seedDemoData } from './seed.js';

const A = '/api/bill-approval/approvals';
const APPROVALS = 200;

let t: TestApp;
let sim: QboSandbox;
let admin = '';
let moderator = '';
let sunriseId = 0;
let managerId = 0;
const app = { clientId: 'billflow-demo', clientSecret: 'demo-secret' };
const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'demo-2min-secret' };

/** Runs `f` over `items`, `n` at a time, as staff working side by side would. */
async function inParallel<T, R>(items: T[], n: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]);
      }
    }),
  );
  return out;
}

beforeAll(async () => {
  sim = await startQboSandbox({
    clients: [app, { ...shortLivedApp, accessTtlSeconds: 120 }],
    billsPerRealm: 240,
    ratePerMinute: 100_000,
    concurrentPerRealm: 50,
  });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  const users = await seedDemoData(t.started.app, { url: sim.url, gatewayUrl: t.url, app, shortLivedApp });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const morgan = users.find((u) => u.role === 'MODERATOR')!;
  moderator = (await signIn(t.url, 'morgan.moderator@billflow.local', morgan.password)).tokens.accessToken;
  const companies = await api(t.url, 'GET', '/api/company/companies?limit=10', { token: admin });
  sunriseId = companies.body.data.find((c: { name: string }) => c.name === 'Sunrise Bakery LLC').id;
  const managers = await api(t.url, 'GET', '/api/manager/managers?limit=10', { token: admin });
  managerId = managers.body.data.find((m: { lastName: string }) => m.lastName === 'Whitfield').id;
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('a busy day on the demo company', () => {
  it('200 approvals approved in one New York day are all paid, in a handful of shared files', async () => {
    // Bills under the second-approval threshold, in no open approval; their vendors given banking.
    const open = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${sunriseId}`, { token: admin });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    type Candidate = {
      id: string;
      balance: number;
      vendorId: number | null;
      bankingReady: boolean;
      inOpenApproval: boolean;
      possibleDuplicate: boolean;
    };
    const bills = (open.body.data as Candidate[]).filter(
      (b) =>
        !b.inOpenApproval &&
        !b.possibleDuplicate &&
        b.vendorId !== null &&
        b.balance > 0 &&
        b.balance < DEMO_SECOND_APPROVAL_THRESHOLD,
    );
    expect(bills.length).toBeGreaterThanOrEqual(APPROVALS);
    const day = bills.slice(0, APPROVALS);
    for (const vendorId of new Set(day.filter((b) => !b.bankingReady).map((b) => b.vendorId))) {
      const r = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
        body: {
          routingNumber: '011000015',
          accountNumber: `77${String(vendorId).padStart(9, '0')}`,
          accountType: 'checking',
        },
        token: admin,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // The demo keeps its control on bank detail changes: the admin's entry is held until a second
      // person approves it, and the moderator does, as the demo's seed does for its own.
      const change = r.body.data.pendingBankingChange;
      expect(change?.status, JSON.stringify(r.body)).toBe('pending');
      const approved = await api(
        t.url,
        'POST',
        `/api/vendors/${vendorId}/banking-changes/${change.changeId}/approve`,
        { body: { reason: 'Confirmed with the vendor by phone' }, token: moderator },
      );
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(approved.body.data.hasBankingInfo).toBe(true);
    }

    // Made by the admin, approved by the moderator (the demo's policy: the creator may not approve).
    const ids = await inParallel(day, 6, async (bill) => {
      const c = await api(t.url, 'POST', A, {
        body: { companyId: sunriseId, billIds: [bill.id], managerId },
        token: admin,
      });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      const id = c.body.data.id as string;
      const a = await api(t.url, 'PUT', `${A}/${id}/approve`, {
        body: { approvedBills: [bill.id] },
        token: moderator,
      });
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      return id;
    });

    // Each one is paid: a file made, none waiting on the day's limit. Read from the list (three
    // pages of 100), not from 200 details a second: the reads must not slow the jobs they wait for.
    const deadline = Date.now() + 420_000;
    type Row = {
      id: string;
      status: string;
      paymentProblem: { kind: string; message: string } | null;
      nachaFileName: string | null;
      nachaBatchNumber: number | null;
      nachaFileUrl: string | null;
    };
    const mine = new Set(ids);
    let settled: Row[] = [];
    for (;;) {
      const rows: Row[] = [];
      for (let page = 1; ; page++) {
        const list = await api(t.url, 'GET', `${A}?companyId=${sunriseId}&limit=100&page=${page}`, {
          token: admin,
        });
        expect(list.status, JSON.stringify(list.body)).toBe(200);
        rows.push(...(list.body.data as Row[]));
        if (page * 100 >= list.body.meta.pagination.total) break;
      }
      settled = rows.filter((r) => mine.has(r.id));
      const pending = settled.filter((d) => d.status !== 'NACHA_GENERATED');
      const stuck = pending.find((d) => d.paymentProblem);
      if (stuck)
        throw new Error(`an approval waits instead of being paid: ${JSON.stringify(stuck.paymentProblem)}`);
      if (settled.length === APPROVALS && pending.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(
          `${pending.length} approval(s) never got a file: ${JSON.stringify(pending.slice(0, 3))}`,
        );
      await new Promise((r) => setTimeout(r, 1000));
    }
    // The approvals share files: each file's batches are the approvals that name it, under their numbers.
    const byFile = new Map<string, Array<{ id: string; batchNumber: number; url: string }>>();
    for (const d of settled)
      byFile.set(d.nachaFileName!, [
        ...(byFile.get(d.nachaFileName!) ?? []),
        { id: d.id, batchNumber: d.nachaBatchNumber!, url: d.nachaFileUrl! },
      ]);
    // One file per cut-off window the approvals were made in: a test crossing a window makes two.
    expect(byFile.size).toBeLessThanOrEqual(3);
    const modifiers = new Set<string>();
    for (const [fileName, members] of byFile) {
      const res = await fetch(`${t.url}${members[0].url}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(validateAchFile(text), fileName).toEqual([]);
      const parsed = parseAchFile(text);
      modifiers.add(parsed.header.fileIdModifier);
      // Every approval naming the file is in it under its number (the demo's own approvals of that
      // window may be there too).
      const numbers = parsed.batches.map((b) => b.header.batchNumber);
      expect(numbers).toEqual(expect.arrayContaining(members.map((m) => m.batchNumber)));
      expect(new Set(members.map((m) => m.batchNumber)).size).toBe(members.length);
    }
    expect(modifiers.size).toBe(byFile.size);
    expect(settled).toHaveLength(APPROVALS);
  }, 600_000);
});
