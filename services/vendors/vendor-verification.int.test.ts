// The vendor's side of a held bank detail change, on the real gateway, workers, Postgres, Redis, the
// QuickBooks simulator and the SMTP catcher: the contact on record before the change gets a notice
// with tails only (once, however often its job runs), or nobody is told and that is recorded; its
// "this was not me" link freezes the change (a GET changes nothing; a tampered, expired or other
// link is refused; pressed again nothing more happens) and every ADMIN is alerted; a frozen change
// can then only be rejected. A micro-deposit check makes a penny-test file staff download (recorded)
// and mails the vendor a link: the right amounts make the change live, wrong ones take a try, three
// lock it; the amounts are nowhere in plain. Roles and staff scope hold, and the links are rate limited.
import { type Job, Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { NACHA_CONFIG } from '../../test/support/payments.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { reactionJobId } from '../../workers/process-manager.js';
import { vendorMailJobHandlers } from '../../workers/vendors/banking-mail.js';
import { queuePrefix } from '../shared/queues.js';
import { signVendorLinkToken } from './vendor-link-token.js';

const qbApp = { clientId: 'billflow-vendor-side', clientSecret: 'vendor-side-secret-4242' };
const PASSWORD = 'Passw0rd-123';
const OLD_ACCOUNT = '55500011004';
const OLD_ROUTING = '011000015';
const NEW_ROUTING = '021000021';
let sim: QboSandbox;
let t: TestApp;
let catcher: SmtpCatcher;
let admin = '';
let mona = '';
let max = '';
let outsider = '';
let user = '';
let companyId = 0;
const ids: Record<string, number> = {};
type V = { id: number; name: string; email: string | null; qbVendorId: string };
let withEmail: V[] = [];
let noEmail: V;

const bank = (accountNumber: string, routingNumber = NEW_ROUTING) => ({
  routingNumber,
  accountNumber,
  accountType: 'checking',
  bankName: null,
});

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms = 30_000,
) {
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
const mailsTo = (address: string, subject: RegExp) =>
  catcher.messages().filter((m) => m.envelope.to.includes(address) && subject.test(m.subject));
const streamOf = (v: V) => `vendor-${companyId}-${v.qbVendorId}`;
const eventsOf = async (v: V, type: string) =>
  (await t.started.app.store.readStream(streamOf(v))).events.filter((e) => e.type === type);

/** The link a vendor mail's button points to, as the path and query its page calls the API with. */
function linkOf(m: CaughtMessage, purpose: 'not-me' | 'micro-deposits'): string {
  const href = new RegExp(`href="(https?://[^/"]+/vendor-banking/${purpose}\\?token=[^"]+)"`).exec(
    m.html ?? '',
  );
  if (!href) throw new Error(`no ${purpose} link in ${m.subject}`);
  return new URL(href[1].replace(/&amp;/g, '&')).searchParams.get('token')!;
}
const linkApi = (purpose: string, token: string, method = 'GET', body?: unknown) =>
  api(t.url, method, `/api/vendors/banking-links/${purpose}?token=${encodeURIComponent(token)}`, { body });

/** A held change by mona (its id), on a vendor whose live banking is OLD_ACCOUNT (approved by max). */
async function heldChange(v: V, account: string): Promise<string> {
  const first = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
    body: bank(OLD_ACCOUNT, OLD_ROUTING),
    token: mona,
  });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const ok = await api(
    t.url,
    'POST',
    `/api/vendors/${v.id}/banking-changes/${first.body.data.pendingBankingChange.changeId}/approve`,
    { body: { reason: 'Called the vendor back' }, token: max },
  );
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  const r = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, { body: bank(account), token: mona });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.pendingBankingChange.status).toBe('pending');
  return r.body.data.pendingBankingChange.changeId;
}

/** The notice of this vendor's change whose new account ends so. */
const noticeOf = (v: V, tail: string) =>
  until(`the notice to ${v.email}`, () =>
    mailsTo(v.email!, /^Your bank details with Guarded Goods were changed$/).find(
      (m) =>
        m.text.includes(`account ending ${tail} (routing ending`) && m.text.includes('After: account ending'),
    ),
  );

/** The two amounts a micro-deposit file credits (entry detail records, amount in columns 30–39). */
const amountsIn = (text: string) =>
  text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('6'))
    .map((l) => Number(l.slice(29, 39)));
const dollars = (cents: number) => `0.${String(cents).padStart(2, '0')}`;

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  sim = await startQboSandbox({ clients: [qbApp] });
  t = await startTestApp({
    // No PUBLIC_URL: the OAuth callback must be on the gateway's own address; the tests read the
    // links' tokens, whatever host the mails name.
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [key, role, email] of [
    ['mona', 'MODERATOR', 'mona@vendor-side.test'],
    ['max', 'MODERATOR', 'max@vendor-side.test'],
    ['olga', 'MODERATOR', 'olga@vendor-side.test'],
    ['uma', 'USER', 'uma@vendor-side.test'],
    ['ada', 'ADMIN', 'ada@vendor-side.test'],
  ] as const) {
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: { email, password: PASSWORD, role, firstName: key === 'mona' ? 'Mona' : key, lastName: 'Maker' },
      token: admin,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[key] = r.body.data.id;
  }
  [mona, max, outsider, user] = await Promise.all(
    ['mona', 'max', 'olga', 'uma'].map(
      async (n) => (await signIn(t.url, `${n}@vendor-side.test`, PASSWORD)).tokens.accessToken,
    ),
  );
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'Guarded Goods', approverId: ids.mona, accountantId: ids.max, processorId: ids.uma },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  companyId = c.body.data.id;
  const nacha = await api(t.url, 'PUT', `/api/company/companies/${companyId}/nacha-config`, {
    body: NACHA_CONFIG,
    token: admin,
  });
  expect(nacha.status, JSON.stringify(nacha.body)).toBe(200);
  await connectOverHttp({ gatewayUrl: t.url, simUrl: sim.url, token: admin, companyId, app: qbApp });
  const s = await api(t.url, 'POST', '/api/vendors/sync', { body: { companyId }, token: admin });
  expect(s.status).toBe(202);
  await until('the vendor sync', async () => {
    const r = await api(t.url, 'GET', `/api/vendors/sync/${s.body.data.syncId}`, { token: admin });
    return r.body.data.status === 'completed';
  });
  const all = (await api(t.url, 'GET', `/api/vendors?companyId=${companyId}&limit=40`, { token: admin })).body
    .data as V[];
  withEmail = all.filter((v) => v.email);
  noEmail = all.find((v) => !v.email)!;
  expect(withEmail.length).toBeGreaterThanOrEqual(6);
  expect(noEmail).toBeTruthy();
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await sim?.close();
  await catcher?.stop();
});

describe('the notice to the vendor’s contact on record', () => {
  it('tells the e-mail on record of a change, once, with tails only, who made it and the link', async () => {
    const v = withEmail[0];
    const changeId = await heldChange(v, '66666666666');
    const mail = await noticeOf(v, '6666');
    expect(mail.envelope.to).toEqual([v.email]);
    expect(mail.text).toContain('Before: account ending 1004 (routing ending 0015)');
    expect(mail.text).toContain('After: account ending 6666 (routing ending 0021), checking');
    expect(mail.text).toContain('Changed by: Mona Maker');
    expect(mail.text).toContain(v.name);
    for (const part of [mail.text, mail.html ?? '', mail.subject])
      for (const full of ['66666666666', OLD_ACCOUNT, NEW_ROUTING, OLD_ROUTING])
        expect(part).not.toContain(full);
    const change = (await api(t.url, 'GET', `/api/vendors/${v.id}/banking-changes`, { token: max })).body
      .data[0];
    expect(change).toMatchObject({ changeId, status: 'pending', contactNotice: 'sent', microDeposits: null });
    const history = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: max })).body.data;
    expect(history.map((h: { action: string }) => h.action)).toContain('Vendor’s contact told of the change');

    // Its job run again (a worker lost mid-job): the same link, no second record, no second mail.
    const requested = (await eventsOf(v, 'VendorBankingChangeRequested')).find(
      (e) => (e.data as { changeId: string }).changeId === changeId,
    )!;
    const job = {
      id: reactionJobId('vendor-mail', requested),
      data: { streamId: streamOf(v), changeId, correlationId: null, causationEventId: requested.id },
    } as unknown as Job;
    expect(await vendorMailJobHandlers['notify-banking-change'](t.started.app, job)).toEqual({
      mails: 1,
      queued: 1,
    });
    const noticed = async () =>
      (await eventsOf(v, 'VendorBankingChangeNoticed')).filter(
        (e) => (e.data as { changeId: string }).changeId === changeId,
      ).length;
    expect(await noticed()).toBe(1);
    // The mail queue idle again: whatever the run queued has been sent, and it was the same mail.
    const mailQueue = new Queue('mail', {
      connection: t.started.app.redis,
      prefix: queuePrefix(t.env.REDIS_PREFIX),
    });
    try {
      await until('the mail queue to be idle', async () => {
        const c = await mailQueue.getJobCounts('waiting', 'active', 'delayed');
        return c.waiting + c.active + c.delayed === 0;
      });
    } finally {
      await mailQueue.close();
    }
    expect(
      mailsTo(v.email!, /^Your bank details/).filter((m) => m.text.includes('ending 6666 (routing')),
    ).toHaveLength(1);
  });

  it('records that nobody could be told when the vendor had no e-mail on record', async () => {
    const r = await api(t.url, 'PUT', `/api/vendors/${noEmail.id}/banking`, {
      body: bank('77777777777'),
      token: mona,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const changeId = r.body.data.pendingBankingChange.changeId;
    const change = await until('the notice’s outcome', async () => {
      const c = (await api(t.url, 'GET', `/api/vendors/${noEmail.id}/banking-changes`, { token: max })).body
        .data[0];
      return c.contactNotice ? c : null;
    });
    expect(change).toMatchObject({ changeId, contactNotice: 'no-contact' });
    const history = (await api(t.url, 'GET', `/api/vendors/${noEmail.id}/history`, { token: max })).body.data;
    expect(history[0]).toMatchObject({ action: 'Vendor’s contact could not be told' });
    // Nobody could receive a micro-deposit link either: refused, clearly, and nothing is made.
    const start = await api(
      t.url,
      'POST',
      `/api/vendors/${noEmail.id}/banking-changes/${changeId}/micro-deposits`,
      {
        token: max,
      },
    );
    expect(start.status).toBe(409);
    expect(start.body.error).toMatch(/no e-mail on record/);
    expect(await eventsOf(noEmail, 'VendorMicroDepositsSent')).toHaveLength(0);
  });
});

describe('"this was not me"', () => {
  it('shows the change on a GET without changing anything, and refuses tampered, expired and other links', async () => {
    const v = withEmail[1];
    const changeId = await heldChange(v, '88888888888');
    const token = linkOf(await noticeOf(v, '8888'), 'not-me');
    const before = (await t.started.app.store.readStream(streamOf(v))).version;
    for (let i = 0; i < 2; i++) {
      const page = await linkApi('not-me', token);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.data).toMatchObject({
        companyName: 'Guarded Goods',
        vendorName: v.name,
        previousAccountNumber: '****1004',
        accountNumber: '****8888',
        madeBy: 'Mona Maker',
        status: 'pending',
        canAct: true,
      });
      expect(JSON.stringify(page.body)).not.toContain('88888888888');
    }
    expect((await t.started.app.store.readStream(streamOf(v))).version).toBe(before);
    const tampered = `${token.slice(0, -3)}${token.slice(-3) === 'AAA' ? 'BBB' : 'AAA'}`;
    for (const bad of [tampered, 'not-a-token', ''])
      expect((await linkApi('not-me', bad, 'POST')).status).toBe(403);
    const secret = t.env.JWT_SECRET;
    const linkId = (await eventsOf(v, 'VendorBankingChangeNoticed')).at(-1)!.data as { linkId: string };
    const expired = await signVendorLinkToken(secret, {
      purpose: 'not-me',
      vendorId: v.id,
      changeId,
      linkId: linkId.linkId,
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const r = await linkApi('not-me', expired, 'POST');
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('This link has expired');
    const otherPurpose = await signVendorLinkToken(secret, {
      purpose: 'micro-deposits',
      vendorId: v.id,
      changeId,
      linkId: linkId.linkId,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await linkApi('not-me', otherPurpose, 'POST')).body.error).toBe(
      'This link is for another action',
    );
    // Signed here, but not the link this change's notice carried.
    const forged = await signVendorLinkToken(secret, {
      purpose: 'not-me',
      vendorId: v.id,
      changeId,
      linkId: 'some-other-link',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await linkApi('not-me', forged, 'POST')).status).toBe(403);
    expect(await eventsOf(v, 'VendorBankingChangeFrozen')).toHaveLength(0);
    expect((await vendor(v.id)).pendingBankingChange.status).toBe('pending');
  });

  it('freezes the change on a press, alerts every ADMIN once, and then it can only be rejected', async () => {
    const v = withEmail[2];
    const changeId = await heldChange(v, '99999999999');
    const token = linkOf(await noticeOf(v, '9999'), 'not-me');
    const press = await linkApi('not-me', token, 'POST');
    expect(press.status, JSON.stringify(press.body)).toBe(200);
    expect(press.body.data).toMatchObject({ status: 'frozen', noAction: false });
    expect((await vendor(v.id, max)).pendingBankingChange).toMatchObject({ changeId, status: 'frozen' });
    for (const address of [t.admin.email, 'ada@vendor-side.test']) {
      const alert = await until(`the alert to ${address}`, () =>
        mailsTo(address, /says a bank details change was not theirs$/).find((m) => m.text.includes(v.name)),
      );
      expect(alert.subject).toBe(
        `Alert: ${v.name} (Guarded Goods) says a bank details change was not theirs`,
      );
      expect(alert.text).toContain('Change: account ending 9999');
      expect(alert.text).toContain('Made by: Mona Maker');
      expect(`${alert.text}${alert.html}`).not.toContain('99999999999');
    }
    // Moderators are not told; the alert is the ADMINs'.
    expect(mailsTo('max@vendor-side.test', /not theirs/)).toHaveLength(0);

    // Pressed again: nothing more happens, nobody is alerted again.
    const again = await linkApi('not-me', token, 'POST');
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'frozen', noAction: true });
    expect(await eventsOf(v, 'VendorBankingChangeFrozen')).toHaveLength(1);
    expect((await linkApi('not-me', token)).body.data).toMatchObject({ status: 'frozen', canAct: false });

    const approve = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/approve`, {
      body: { reason: 'Looks fine' },
      token: max,
    });
    expect(approve.status).toBe(409);
    expect(approve.body.error).toMatch(/can only be rejected/);
    const start = await api(
      t.url,
      'POST',
      `/api/vendors/${v.id}/banking-changes/${changeId}/micro-deposits`,
      {
        token: max,
      },
    );
    expect(start.status).toBe(409);
    const reject = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/${changeId}/reject`, {
      body: { reason: 'The vendor says it was not theirs' },
      token: max,
    });
    expect(reject.status).toBe(200);
    const after = await vendor(v.id, max);
    expect(after.accountNumber).toBe('****1004');
    expect(after.pendingBankingChange).toBeNull();
    // The link of a decided change no longer acts.
    const late = await linkApi('not-me', token, 'POST');
    expect(late.status).toBe(409);
    expect(late.body.error).toMatch(/no longer held: it was rejected/);
  });
});

describe('micro-deposits', () => {
  let v: V;
  let changeId = '';
  let text = '';

  it('are started by staff in scope only, as a penny-test file of their own', async () => {
    v = withEmail[3];
    changeId = await heldChange(v, '12121212121');
    const path = `/api/vendors/${v.id}/banking-changes/${changeId}/micro-deposits`;
    expect((await api(t.url, 'POST', path, { token: user })).status).toBe(403);
    expect((await api(t.url, 'POST', path, { token: outsider })).status).toBe(404);
    expect((await api(t.url, 'POST', path)).status).toBe(401);
    const bad = await api(t.url, 'POST', `/api/vendors/${v.id}/banking-changes/not-a-change/micro-deposits`, {
      token: max,
    });
    expect(bad.status).toBe(400);
    expect(await eventsOf(v, 'VendorMicroDepositsSent')).toHaveLength(0);

    // The maker may start it: the vendor, not a colleague, confirms.
    const r = await api(t.url, 'POST', path, { token: mona });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const md = r.body.data.pendingBankingChange.microDeposits;
    expect(md).toMatchObject({ status: 'sent', triesLeft: 3, startedByName: 'Mona Maker' });
    expect(md.fileName).toMatch(/\.txt$/);
    expect(r.body.data.pendingBankingChange.awaiting).toMatch(/micro-deposits \(sent; 3 tries left\)/);
    expect(r.body.data.accountNumber).toBe('****1004');

    // Staff download it (recorded); a USER may not.
    expect((await api(t.url, 'GET', md.fileUrl, { token: user })).status).toBe(403);
    const file = await fetch(`${t.url}${md.fileUrl}`, { headers: { authorization: `Bearer ${max}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain(md.fileName);
    text = await file.text();
    expect(text).toContain('ACCTVERIFY');
    expect(text).toContain('12121212121');
    const amounts = amountsIn(text);
    expect(amounts).toHaveLength(2);
    for (const a of amounts) expect(a >= 1 && a <= 99).toBe(true);
    const viaGraphql = await gql(
      t.url,
      'mutation($id: Int!, $changeId: String!) { downloadVendorMicroDepositFile(id: $id, changeId: $changeId) { fileName text } }',
      { id: v.id, changeId },
      max,
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.downloadVendorMicroDepositFile).toEqual({ fileName: md.fileName, text });
    expect(await eventsOf(v, 'VendorMicroDepositsFileDownloaded')).toHaveLength(2);

    // The amounts are sealed in the event, and in plain nowhere else: not the file's summary, a read model.
    const [raw] = await sql(
      `SELECT data::text AS data FROM es_events WHERE event_type = 'VendorMicroDepositsSent' AND stream_id = $1`,
      [streamOf(v)],
    );
    const data = JSON.parse(raw.data);
    expect(data.amountsCents).toBeUndefined();
    expect(data.pii.ct).toEqual(expect.any(String));
    const [summary] = await sql(`SELECT summary::text AS s, kind FROM nacha_files WHERE file_name = $1`, [
      md.fileName,
    ]);
    expect(summary.kind).toBe('penny-test');
    expect(summary.s).not.toMatch(/total|amount/i);
    const [row] = await sql(
      `SELECT row_to_json(r)::text AS r FROM vendor_banking_verifications r WHERE change_id = $1`,
      [changeId],
    );
    expect(row.r).not.toMatch(/amount/i);
  });

  it('go live on the right amounts through the vendor’s link; wrong ones take a try; malformed ones none', async () => {
    const mail = await until(
      'the micro-deposit link',
      () => mailsTo(v.email!, /^Confirm your new bank account with Guarded Goods$/)[0],
    );
    expect(mail.text).toContain('account ending 2121');
    expect(`${mail.text}${mail.html}`).not.toContain('12121212121');
    const token = linkOf(mail, 'micro-deposits');
    const [a, b] = amountsIn(text);
    const view = await linkApi('micro-deposits', token);
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.data).toMatchObject({
      verification: 'open',
      triesLeft: 3,
      canAct: true,
      accountNumber: '****2121',
    });
    const malformed = await linkApi('micro-deposits', token, 'POST', { amounts: ['abc', '12'] });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/between 0.01 and 0.99/);
    const wrong = await linkApi('micro-deposits', token, 'POST', {
      amounts: [dollars(a === 99 ? 1 : a + 1), dollars(b)],
    });
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(200);
    expect(wrong.body.data).toMatchObject({ outcome: 'wrong', triesLeft: 2 });
    expect((await vendor(v.id)).accountNumber).toBe('****1004');
    // The right ones, in the other order, as a statement shows them.
    const right = await linkApi('micro-deposits', token, 'POST', { amounts: [`$${dollars(b)}`, dollars(a)] });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body.data.outcome).toBe('confirmed');
    const live = await vendor(v.id, max);
    expect(live.accountNumber).toBe('****2121');
    expect(live.pendingBankingChange).toBeNull();
    const change = (await api(t.url, 'GET', `/api/vendors/${v.id}/banking-changes`, { token: max })).body
      .data[0];
    expect(change).toMatchObject({ changeId, status: 'approved', verifiedBy: 'micro-deposits' });
    expect(change.microDeposits).toMatchObject({ status: 'confirmed', triesLeft: 2 });
    const history = (await api(t.url, 'GET', `/api/vendors/${v.id}/history`, { token: max })).body.data;
    expect(history.slice(0, 3).map((h: { action: string }) => h.action)).toEqual([
      'Bank details change live',
      'Micro-deposits confirmed',
      'Wrong micro-deposit amounts entered',
    ]);
    expect(history[0].details).toMatch(/verified by the vendor’s micro-deposit amounts/);
    // Used: it no longer acts.
    const reused = await linkApi('micro-deposits', token, 'POST', { amounts: [dollars(a), dollars(b)] });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toMatch(/Already confirmed/);
  });

  it('lock after three wrong tries; a new check replaces the old link; a second person still can approve', async () => {
    const w = withEmail[4];
    const cid = await heldChange(w, '34343434343');
    const start = async () => {
      const r = await gql(
        t.url,
        'mutation($id: Int!, $changeId: String!) { startVendorMicroDeposits(id: $id, changeId: $changeId) { pendingBankingChange { microDeposits { verificationId status triesLeft } } } }',
        { id: w.id, changeId: cid },
        max,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      return r.data.startVendorMicroDeposits.pendingBankingChange.microDeposits.verificationId as string;
    };
    const first = await start();
    const firstMail = await until(
      'the first link',
      () => mailsTo(w.email!, /^Confirm your new bank account/)[0],
    );
    const token = linkOf(firstMail, 'micro-deposits');
    // The amounts as the vendor's stream holds them (opened here, as only the decider reads them).
    const sent = (await eventsOf(w, 'VendorMicroDepositsSent'))[0].data as { amountsCents: number[] };
    const [a, b] = sent.amountsCents;
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const r = await linkApi('micro-deposits', token, 'POST', {
        amounts: [dollars(a), dollars(b === 99 ? 1 : b + 1)],
      });
      outcomes.push([r.status, r.body.data?.outcome, r.body.data?.triesLeft]);
    }
    expect(outcomes).toEqual([
      [200, 'wrong', 2],
      [200, 'wrong', 1],
      [200, 'locked', 0],
    ]);
    const locked = await linkApi('micro-deposits', token, 'POST', {
      amounts: sent.amountsCents.map(dollars),
    });
    expect(locked.status).toBe(409);
    expect(locked.body.error).toMatch(/locked/);
    expect((await vendor(w.id)).accountNumber).toBe('****1004');
    expect(
      (await api(t.url, 'GET', `/api/vendors/${w.id}/history`, { token: max })).body.data[0].action,
    ).toBe('Micro-deposit check locked');

    // A new check: its own link; the old one says it was replaced.
    const second = await start();
    expect(second).not.toBe(first);
    const replaced = await linkApi('micro-deposits', token);
    expect(replaced.body.data).toMatchObject({ verification: 'replaced', canAct: false });
    // Two checks a vendor a New York day, as for an approval's penny tests: a third is refused, named.
    const third = await api(t.url, 'POST', `/api/vendors/${w.id}/banking-changes/${cid}/micro-deposits`, {
      token: max,
    });
    expect(third.status).toBe(409);
    expect(third.body.error).toMatch(/Penny test limit reached: at most 2 penny tests per vendor a day/);
    // A second person's approval still ends it.
    const approve = await api(t.url, 'POST', `/api/vendors/${w.id}/banking-changes/${cid}/approve`, {
      body: { reason: 'Called the vendor back on the number on file' },
      token: max,
    });
    expect(approve.status, JSON.stringify(approve.body)).toBe(200);
    expect(approve.body.data.accountNumber).toBe('****4343');
  });
});

describe('the links’ rate limit', () => {
  it('refuses a flood of link calls from one address with 429', async () => {
    let limited = 0;
    for (let i = 0; i < 70 && limited === 0; i++) {
      const r = await linkApi('not-me', `flood-${i}`);
      if (r.status === 429) limited++;
      else expect(r.status).toBe(403);
    }
    expect(limited).toBe(1);
    const r = await linkApi('micro-deposits', 'anything', 'POST', { amounts: ['0.10', '0.20'] });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/Too many attempts/);
  });
});
