// Penny tests cannot spend the day's payment files, end to end on Postgres, Redis, the workers and
// the QuickBooks simulator: a MODERATOR's thirty penny tests in a row over the REST route are refused
// past two a vendor and six a company a day, each refusal a 409 in the envelope saying the limit and
// when it resets (GraphQL says the same), and take only the last modifiers of the range; payment
// files made afterwards still get theirs. A penny test whose file cannot be written takes none. Two
// command handlers (two processes) taking modifiers at once keep the company's limit too. Its own
// company, vendors and approvals: no other file's data is shared.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, gql, signIn } from '../../../test/support/http.js';
import { connectedCompany, nachaOutcome, readyToPay, syncVendors } from '../../../test/support/payments.js';
import type { QbBill } from '../../../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../../../tools/qbo-sandbox/server.js';
import { CommandHandler } from '../../app/command-handler.js';
import { companyDecider } from '../../companies/company-decider.js';
import { achFileDay } from '../../nacha/payment-file.js';
import {
  fileDayStreamId,
  PENNY_LIMIT,
  PENNY_TEST_MODIFIERS,
  PENNY_TESTS_PER_COMPANY_PER_DAY,
  PENNY_TESTS_PER_VENDOR_PER_DAY,
  pennyLimitsReset,
  takeFileIdModifier,
} from '../../payments/file-modifier.js';
import { DomainError } from '../../shared/domain-errors.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-penny', clientSecret: 'penny-secret-value-3321' };
let sim: QboSandbox;
let t: TestApp;
let admin = '';
let moderator = '';
let companyId = 0;
/** One open bill of each of five vendors with banking. */
let bills: QbBill[] = [];
/** Approvals of one vendor each (bills[0..3]), their payment files made. */
const approvals: string[] = [];

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

/** The company's file-day events today, in order. */
const today = () => achFileDay(new Date());
const dayEvents = () =>
  sql<{ data: any }>(`SELECT data FROM es_events WHERE stream_id = $1 ORDER BY stream_version`, [
    fileDayStreamId(companyId, today()),
  ]);

async function approve(bill: QbBill) {
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds: [bill.Id], recipients: ['payables@penny.test'] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  const a = await api(t.url, 'PUT', `${A}/${id}/approve`, {
    body: { approvedBills: [bill.Id] },
    token: admin,
  });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return id;
}

const pennyTest = (approvalId: string) =>
  api(t.url, 'POST', `${A}/${approvalId}/generate-penny-test`, { token: moderator });

/** The file id modifier in a file name: ACH_<day>_<modifier>_<company>.txt. */
const modifierOf = (fileName: string) => fileName.split('_')[2];

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    body: {
      email: 'mod@penny.test',
      password: 'Passw0rd-123',
      role: 'MODERATOR',
      firstName: 'Mo',
      lastName: 'Derator',
    },
    token: admin,
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  moderator = (await signIn(t.url, 'mod@penny.test', 'Passw0rd-123')).tokens.accessToken;
  let realm: Awaited<ReturnType<typeof connectedCompany>>['realm'];
  ({ companyId, realm } = await connectedCompany({
    url: t.url,
    sim,
    token: admin,
    app: qbApp,
    name: 'Penny Pantry',
  }));
  await readyToPay(t.url, admin, companyId);
  const vendorIds = new Map<string, number>();
  for (const v of await syncVendors(t.url, admin, companyId)) if (v.active) vendorIds.set(v.qbVendorId, v.id);
  const firstBill = new Map<string, QbBill>();
  for (const b of realm.bills)
    if (b.Balance > 0 && vendorIds.has(b.VendorRef.value) && !firstBill.has(b.VendorRef.value))
      firstBill.set(b.VendorRef.value, b);
  bills = [...firstBill.values()].slice(0, 5);
  expect(bills).toHaveLength(5);
  for (const [i, b] of bills.entries()) {
    const r = await api(t.url, 'PUT', `/api/vendors/${vendorIds.get(b.VendorRef.value)}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: `7788990${i}`,
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  for (const b of bills.slice(0, 4)) approvals.push(await approve(b));
  for (const id of approvals) expect((await nachaOutcome(t.url, admin, id)).status).toBe('NACHA_GENERATED');
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('penny tests and the day’s file id modifiers', () => {
  it('a penny test whose file cannot be written takes no modifier', async () => {
    const before = await dayEvents();
    // The four approvals made for one cut-off window share its file: one modifier (decision 0040).
    expect(before.map((e) => e.data.modifier)).toEqual(['A']);
    // Settings the form would refuse (the routing number's check digit), as an older import could
    // have left them: the writer refuses the file.
    const company = await t.started.app.commands.load(companyDecider, companyDecider.streamId(companyId));
    const settings = company.state.nacha!;
    await t.started.app.commands.handle(
      companyDecider,
      companyDecider.streamId(companyId),
      {
        type: 'ConfigureNacha',
        settings: { ...settings, bankRoutingNumber: '123456789' },
        now: new Date().toISOString(),
      },
      { userId: null },
    );
    try {
      const r = await pennyTest(approvals[0]);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toMatch(/^The company's NACHA settings: .*routing number 123456789/);
      expect(await dayEvents()).toHaveLength(before.length);
    } finally {
      await t.started.app.commands.handle(
        companyDecider,
        companyDecider.streamId(companyId),
        { type: 'ConfigureNacha', settings, now: new Date().toISOString() },
        { userId: null },
      );
    }
  });

  it('thirty in a row by a MODERATOR: two a vendor, six a company, then a clear 409; payments keep theirs', async () => {
    const [a1, a2, a3, a4] = approvals;
    // a1 three times (its vendor's limit), the other vendors, then the company's limit for the rest.
    const order = [a1, a1, a1, a2, a3, a4, a2];
    while (order.length < 30) order.push(approvals[order.length % 4]);
    const results = [];
    for (const id of order) results.push(await pennyTest(id));
    const resets = pennyLimitsReset(today());
    expect(resets).toMatch(/^The limit resets at midnight New York time \(00:00 on \d{4}-\d{2}-\d{2}\)\.$/);

    expect(results.map((r) => r.status)).toEqual([200, 200, 409, 200, 200, 200, 200, ...Array(23).fill(409)]);
    const made = results.filter((r) => r.status === 200);
    expect(made).toHaveLength(PENNY_TESTS_PER_COMPANY_PER_DAY);
    // From the end of the range, the last first.
    expect(made.map((r) => modifierOf(r.body.data.fileName))).toEqual([...PENNY_TEST_MODIFIERS].reverse());

    const vendorRefusal = results[2].body;
    expect(vendorRefusal).toMatchObject({ success: false, code: 'CONFLICT' });
    expect(vendorRefusal.message).toBe(
      `${PENNY_LIMIT}: at most ${PENNY_TESTS_PER_VENDOR_PER_DAY} penny tests per vendor a day, and ${bills[0].VendorRef.name} has had 2 today. ${resets}`,
    );
    expect(vendorRefusal.error).toBe(vendorRefusal.message);
    for (const r of results.slice(7)) {
      expect(r.body).toMatchObject({ success: false, code: 'CONFLICT' });
      expect(r.body.message).toBe(
        `${PENNY_LIMIT}: at most ${PENNY_TESTS_PER_COMPANY_PER_DAY} penny tests per company a day (its payment files keep the day's other file ids), and this company has made 6 today. ${resets}`,
      );
    }
    // GraphQL, which the web's penny-test button calls, refuses with the same text.
    const g = await gql(
      t.url,
      `mutation($id: String!) { generatePennyTest(id: $id) { fileName } }`,
      { id: a4 },
      moderator,
    );
    expect(g.errors?.[0]?.message).toContain(`${PENNY_LIMIT}: at most 6 penny tests per company a day`);
    expect(g.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    // The day's stream: the four approvals' shared file A, then the six penny tests, each with its vendors.
    const events = await dayEvents();
    expect(events.map((e) => [e.data.modifier, e.data.kind])).toEqual([
      ['A', 'payment'],
      ...[...'987654'].map((m) => [m, 'penny-test']),
    ]);
    expect(events.slice(1).map((e) => e.data.qbVendorIds)).toEqual(
      [0, 0, 1, 2, 3, 1].map((i) => [bills[i].VendorRef.value]),
    );

    // The shared file is downloaded, so sealed: payment files made afterwards get the next modifier,
    // a regenerated one too (its old batch went with the sealed file).
    const sealedUrl = (await nachaOutcome(t.url, admin, a1)).nachaFileUrl;
    expect(
      (await fetch(`${t.url}${sealedUrl}`, { headers: { authorization: `Bearer ${admin}` } })).status,
    ).toBe(200);
    const a5 = await approve(bills[4]);
    const d5 = await nachaOutcome(t.url, admin, a5);
    expect(d5.status).toBe('NACHA_GENERATED');
    expect(modifierOf(d5.nachaFileName)).toBe('B');
    const regen = await api(t.url, 'POST', `${A}/${a1}/regenerate-nacha`, { token: moderator });
    expect(regen.status, JSON.stringify(regen.body)).toBe(200);
    const d1 = await nachaOutcome(t.url, admin, a1, 2);
    expect(d1.status).toBe('NACHA_GENERATED');
    expect(d1.nachaFileName).toBe(d5.nachaFileName);
  });

  it('holds the company’s limit when two processes take modifiers at once', async () => {
    // Another day's stream of the same company, so today's is left as the test above left it.
    const day = '20300102';
    const processes = [
      new CommandHandler(t.started.app.store, 20),
      new CommandHandler(t.started.app.store, 20),
    ];
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        takeFileIdModifier(
          { ...t.started.app, commands: processes[i % 2] },
          companyId,
          day,
          `concurrent-penny-${i}`,
          { userId: null },
          { vendors: [{ qbVendorId: `v${i}`, name: `Vendor ${i}` }] },
        ),
      ),
    );
    const taken = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(taken.sort()).toEqual([...PENNY_TEST_MODIFIERS].sort());
    for (const s of settled)
      if (s.status === 'rejected') {
        expect(s.reason).toBeInstanceOf(DomainError);
        expect((s.reason as DomainError).message).toMatch(
          /^Penny test limit reached: at most 6 penny tests per company a day/,
        );
      }
    // A payment file on that day still starts at A.
    expect(
      await takeFileIdModifier(t.started.app, companyId, day, 'concurrent-payment', { userId: null }),
    ).toBe('A');
  });
});
