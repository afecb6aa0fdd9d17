// A vendor's mail about a held bank detail change that is not delivered is on record and on the
// change, end to end on Postgres, Redis, the workers and a real SMTP server that refuses the vendor's
// address (550 at RCPT TO): the notice to the contact on record shows as not delivered (the vendor may
// not know; staff are told to check by phone), the micro-deposit link likewise, the vendor's history
// says so with the reason and no address, and the operations retry of the mail, once the address takes
// mail again, records the delivery.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { readyToPay, syncVendors } from '../../test/support/payments.js';
import { refusingSmtp } from '../../test/support/refusing-smtp.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { MAIL_QUEUE } from '../../workers/mail/mail.js';

const qbApp = { clientId: 'billflow-vendor-mail-fail', clientSecret: 'vendor-mail-fail-secret-42' };
const PASSWORD = 'Passw0rd-123';

let sim: QboSandbox;
let smtp: ReturnType<typeof refusingSmtp>;
let t: TestApp;
let admin = '';
let mona = '';
let max = '';
let companyId = 0;
let vendors: Array<{ id: number; email: string; qbVendorId: string }> = [];

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 45_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const vendor = async (id: number) =>
  (await api(t.url, 'GET', `/api/vendors/${id}`, { token: max })).body.data;
const history = async (id: number) =>
  (await api(t.url, 'GET', `/api/vendors/${id}/history`, { token: max })).body.data as Array<{
    action: string;
    details: string | null;
  }>;
const eventsOf = async (v: { qbVendorId: string }, type: string) =>
  (await t.started.app.store.readStream(`vendor-${companyId}-${v.qbVendorId}`)).events.filter(
    (e) => e.type === type,
  );

async function sql(text: string): Promise<Array<{ data: string }>> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text)).rows;
  } finally {
    await pool.end();
  }
}

/** A first bank account for the vendor, by mona: held (the control is on). */
async function heldChange(vendorId: number, accountNumber: string): Promise<string> {
  const r = await api(t.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
    body: { routingNumber: '021000021', accountNumber, accountType: 'checking', bankName: null },
    token: mona,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.pendingBankingChange.status).toBe('pending');
  return r.body.data.pendingBankingChange.changeId;
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  smtp = refusingSmtp();
  const port = await smtp.listen();
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: `smtp://127.0.0.1:${port}` },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const name of ['mona', 'max']) {
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email: `${name}@mail-fail.test`, password: PASSWORD, role: 'MODERATOR', firstName: name },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  [mona, max] = await Promise.all(
    ['mona', 'max'].map(
      async (n) => (await signIn(t.url, `${n}@mail-fail.test`, PASSWORD)).tokens.accessToken,
    ),
  );
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'Bounce Freight' },
    token: admin,
  });
  companyId = c.body.data.id;
  await connectOverHttp({ gatewayUrl: t.url, simUrl: sim.url, token: admin, companyId, app: qbApp });
  await readyToPay(t.url, admin, companyId, { bankingControl: true });
  await syncVendors(t.url, admin, companyId);
  const list = await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token: admin });
  vendors = (list.body.data as Array<{ id: number; email: string | null; qbVendorId: string }>)
    .filter((v): v is { id: number; email: string; qbVendorId: string } => Boolean(v.email))
    .slice(0, 2);
  expect(vendors).toHaveLength(2);
  for (const v of vendors) smtp.refused.add(v.email.toLowerCase());
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await smtp?.close();
  await sim?.close();
});

describe('a vendor mail about a held change that is not delivered', () => {
  it('shows the notice as not delivered, on record without the address; the retry records the delivery', async () => {
    const v = vendors[0];
    const changeId = await heldChange(v.id, '81818181818');
    const held = await until('the notice marked undelivered', async () => {
      const x = await vendor(v.id);
      return x.pendingBankingChange?.contactNotice === 'undelivered' ? x.pendingBankingChange : null;
    });
    expect(held.changeId).toBe(changeId);
    const line = (await history(v.id)).find(
      (h) => h.action === 'Notice to the vendor’s contact not delivered',
    );
    expect(line?.details).toMatch(
      /^The notice of the change to the e-mail on record was not delivered \(.*550/,
    );
    expect(line?.details).toContain('Check with the vendor on a number already on file');
    const [ended] = await eventsOf(v, 'VendorBankingMailEnded');
    expect(ended.data).toMatchObject({ changeId, mail: 'change-notice', outcome: 'failed' });
    // The reason names no address: the event as stored, and the failed mail job's data.
    const raw = await sql(
      `SELECT data::text AS data FROM es_events WHERE event_type = 'VendorBankingMailEnded'`,
    );
    expect(raw.length).toBeGreaterThan(0);
    for (const r of raw) expect(r.data.toLowerCase()).not.toContain(v.email.toLowerCase());

    // The address takes mail again: the operations retry of that mail delivers it, and that is recorded.
    smtp.refused.delete(v.email.toLowerCase());
    const mailJobId = (ended.data as { mailJobId: string }).mailJobId;
    const retry = await api(
      t.url,
      'POST',
      `/api/operations/queues/${MAIL_QUEUE}/jobs/${encodeURIComponent(mailJobId)}/retry`,
      { token: admin },
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    await until('the notice delivered', async () => {
      const x = await vendor(v.id);
      return x.pendingBankingChange?.contactNotice === 'sent';
    });
    expect(smtp.delivered).toContain(v.email.toLowerCase());
    expect((await history(v.id))[0].action).toBe('Notice to the vendor’s contact delivered');
    expect(
      (await eventsOf(v, 'VendorBankingMailEnded')).map((e) => (e.data as { outcome: string }).outcome),
    ).toEqual(['failed', 'delivered']);
  }, 120_000);

  it('shows the micro-deposit link as not delivered, and who must act says so', async () => {
    const v = vendors[1];
    const changeId = await heldChange(v.id, '92929292929');
    await until('the notice marked undelivered', async () => {
      const x = await vendor(v.id);
      return x.pendingBankingChange?.contactNotice === 'undelivered';
    });
    const r = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/micro-deposits`, {
      token: max,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.pendingBankingChange.microDeposits.linkUndelivered).toBe(false);
    const change = await until('the link marked undelivered', async () => {
      const x = await vendor(v.id);
      return x.pendingBankingChange?.microDeposits?.linkUndelivered ? x.pendingBankingChange : null;
    });
    expect(change.microDeposits.status).toBe('sent');
    expect(change.awaiting).toMatch(/\(sent, but the e-mail with the vendor’s link was not delivered\)$/);
    expect((await history(v.id)).map((h) => h.action)).toContain('Micro-deposit link not delivered');
    // GraphQL says the same.
    const g = await api(t.url, 'POST', '/graphql', {
      body: {
        query: `query($id: Int!) { vendor(id: $id) { pendingBankingChange { contactNotice microDeposits { linkUndelivered } } } }`,
        variables: { id: v.id },
      },
      token: max,
    });
    expect(g.body.errors, JSON.stringify(g.body)).toBeUndefined();
    expect(g.body.data.vendor.pendingBankingChange).toEqual({
      contactNotice: 'undelivered',
      microDeposits: { linkUndelivered: true },
    });
  }, 120_000);
});
