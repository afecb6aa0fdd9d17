// E-mail links without sign-in, against real Postgres, Redis and the SMTP catcher: a new approval
// mails its manager; a generated file mails each recipient a bank-upload link,
// once; opening the link (GET, HEAD) changes nothing; its button confirms and lands on
// /direct-action-result with the spec's query; a second press is noAction; forged, expired, other
// approval, other action and superseded links are refused with their texts; verify-token answers;
// the history names the link's recipient; and no address is readable in a token, the log or Redis.
import { randomUUID } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { decodeJwt, SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillSnapshot } from '../../schema/approvals/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { linkJobHandlers } from '../../workers/approvals/link-jobs.js';
import { PAYMENTS_QUEUE } from '../../workers/approvals/payments.js';
import { queuePrefix } from '../shared/queues.js';
import { redisOptions } from '../shared/redis.js';
import type { ApprovalCommand } from './approval-decider.js';
import { approvalDecider, approvalStreamId } from './approval-decider.js';
import { signLinkToken } from './payments/link-token.js';
import { signResultRef } from './payments/result-ref.js';

const PUBLIC = 'https://billflow.test';
const A = '/api/bill-approval/approvals';
const MANAGER = 'mira.manager@links-manager.test';
const RECIPIENT = 'Pat.Payer@links-recipient.test';

let t: TestApp;
let catcher: SmtpCatcher;
let admin = '';
let adminId = 0;
let companyId = 0;
let managerId = 0;
let n = 0;

/** Several commands as one append, through the decider: no process manager sees a state between them. */
const batch = {
  ...approvalDecider,
  decide(commands: ApprovalCommand[], state: ReturnType<typeof approvalDecider.initialState>) {
    const out = [];
    for (const c of commands) {
      const events = approvalDecider.decide(c, state);
      for (const e of events) state = approvalDecider.evolve(state, e);
      out.push(...events);
    }
    return out;
  },
};
const run = (approvalId: string, commands: ApprovalCommand[]) =>
  t.started.app.commands.handle(batch, approvalStreamId(approvalId), commands, { userId: String(adminId) });

const bill = (id: string, amount: number): BillSnapshot => ({
  Id: id,
  DocNumber: `INV-${id}`,
  TxnDate: '2025-06-01',
  DueDate: '2025-06-30',
  TotalAmt: amount,
  Balance: amount,
  CurrencyRef: 'USD',
  VendorRef: { value: '56', name: 'Bob’s Burger Joint' },
  VendorInfo: { CompanyName: 'Bob’s Burger Joint' },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
});

const now = () => new Date().toISOString();
const create = (approvalId: string): ApprovalCommand => ({
  type: 'CreateApproval',
  approvalId,
  companyId,
  priority: 'HIGH',
  managerId,
  byUserId: adminId,
  bills: [bill(`b${approvalId.slice(0, 6)}`, 1250.5)],
  vendorContacts: [],
  recipients: [RECIPIENT],
  confirmedDuplicates: [],
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  now: now(),
});
const generated = (version: number, fileName: string): ApprovalCommand[] => [
  version === 1
    ? { type: 'RequestNacha', reason: 'approved', byUserId: null, now: now() }
    : { type: 'RequestNacha', reason: 'regenerate', byUserId: adminId, now: now() },
  {
    type: 'RecordNachaGenerated',
    version,
    file: {
      fileId: `file-${fileName}`,
      fileName,
      batchNumber: version,
      fileIdModifier: 'A',
      effectiveDate: '2025-06-03',
      entryCount: 1,
      totalCreditCents: 125_050,
      totalDebitCents: 0,
      balanced: false,
      vendors: [
        {
          qbVendorId: '56',
          name: 'Bob’s Burger Joint',
          amountCents: 125_050,
          accountLast4: '6789',
          billIds: [],
        },
      ],
      skippedBills: [],
    },
    now: now(),
  },
];

/** A NACHA_GENERATED approval, made through the decider in one append. */
async function generatedApproval(): Promise<string> {
  n++;
  const approvalId = randomUUID();
  const billId = `b${approvalId.slice(0, 6)}`;
  await run(approvalId, [
    create(approvalId),
    {
      type: 'ApproveApproval',
      approvedBillIds: [billId],
      byUserId: adminId,
      managerEmail: MANAGER,
      policy: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      // No vendor of these bills is synced: none has banking to record.
      banking: [],
      now: now(),
    },
    ...generated(1, `ACH_LINKS_${n}_v1.txt`),
  ]);
  return approvalId;
}

const mailsFor = (approvalId: string, subject: RegExp) =>
  catcher.messages().filter((m) => subject.test(m.subject) && (m.html ?? '').includes(approvalId));

async function until<T>(what: string, probe: () => T | undefined | null | false, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The link a mail's button points to, on this test's gateway (the mail says PUBLIC_URL). */
function linkOf(m: CaughtMessage): { url: string; path: string; token: string } {
  const href =
    /href="(https:\/\/billflow\.test\/api\/bill-approval\/approvals\/[^"]+confirm-link[^"]+)"/.exec(
      m.html ?? '',
    );
  if (!href) throw new Error(`no link in ${m.subject}`);
  const u = new URL(href[1].replace(/&amp;/g, '&'));
  return { url: u.toString(), path: `${u.pathname}${u.search}`, token: u.searchParams.get('token')! };
}

async function linkMails(approvalId: string, subject: RegExp, count: number) {
  const got = await until(`${count} mails`, () => {
    const m = mailsFor(approvalId, subject);
    return m.length >= count ? m : null;
  });
  // Once each: a little later still no more.
  await new Promise((r) => setTimeout(r, 400));
  expect(mailsFor(approvalId, subject)).toHaveLength(count);
  return got;
}

const press = (path: string) =>
  fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
/** The redirect's query as the result page reads it (its signed `ref` aside: refOf). */
const resultOf = (res: Response) => {
  expect(res.status).toBe(303);
  const u = new URL(res.headers.get('location')!, 'http://x');
  expect(u.pathname).toBe('/direct-action-result');
  const { ref: _ref, ...query } = Object.fromEntries(u.searchParams);
  return query;
};
const refOf = (res: Response) => new URL(res.headers.get('location')!, 'http://x').searchParams.get('ref');
const readResult = (ref: string) =>
  api(t.url, 'GET', `/api/bill-approval/direct-action-result?ref=${encodeURIComponent(ref)}`);
const status = async (approvalId: string) =>
  (await t.started.app.commands.load(approvalDecider, approvalStreamId(approvalId))).state.status;

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({ env: { SMTP_URL: catcher.smtpUrl, PUBLIC_URL: PUBLIC } });
  const me = await signIn(t.url, t.admin.email, t.admin.password);
  admin = me.tokens.accessToken;
  adminId = me.user.id;
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'Links & Co' },
    token: admin,
  });
  companyId = c.body.data.id;
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Mira', lastName: 'Manager', email: MANAGER },
    token: admin,
  });
  managerId = m.body.data.id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await catcher?.stop();
});

describe('e-mail links', () => {
  it('tells the assigned manager of a new approval, once', async () => {
    const approvalId = 'aaaaaaaa-1111-4222-8333-000000000001';
    await run(approvalId, [create(approvalId)]);
    const [mail] = await linkMails(approvalId, /^New approval for Links & Co/, 1);
    expect(mail.envelope.to).toEqual([MANAGER]);
    expect(mail.subject).toBe('New approval for Links & Co: 1 bill, $1,250.50');
    expect(mail.text).toContain('Hello Mira Manager,');
  });

  it('mails each recipient a bank-upload link once; the token names no one; a GET or HEAD changes nothing', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    expect(mails.map((m) => m.envelope.to[0]).sort()).toEqual([RECIPIENT, MANAGER].sort());
    const tokens = mails.map((m) => linkOf(m).token);
    expect(new Set(tokens).size).toBe(2);
    for (const token of tokens) {
      const claims = decodeJwt(token);
      expect(Object.keys(claims).sort()).toEqual(['act', 'aid', 'exp', 'lid']);
      expect(claims).toMatchObject({ aid: approvalId, act: 'bank-uploaded' });
      const readable = Buffer.from(token.split('.')[1], 'base64url').toString() + token;
      expect(readable).not.toMatch(/@|links-manager|links-recipient/i);
      // Seven days by default.
      expect((claims.exp as number) * 1000 - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    }
    const link = linkOf(mails.find((m) => m.envelope.to[0] === MANAGER)!);
    const before = (await t.started.app.store.readStream(approvalStreamId(approvalId))).version;
    for (let i = 0; i < 3; i++) {
      const page = await fetch(`${t.url}${link.path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('Links &amp; Co');
      expect(html).toContain('$1,250.50');
      expect(html).toContain(`ACH_LINKS_${n}_v1.txt`);
      expect(html).toMatch(/<form method="post" action="[^"]+confirm-link\?action=bank-uploaded&amp;token=/);
      expect(html).not.toContain('<script');
      const head = await fetch(`${t.url}${link.path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
    }
    expect((await t.started.app.store.readStream(approvalStreamId(approvalId))).version).toBe(before);
    expect(await status(approvalId)).toBe('NACHA_GENERATED');
  });

  it('issues the same links and queues the same mails when a send-links job runs again', async () => {
    const approvalId = await generatedApproval();
    await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const issued = async () =>
      (await t.started.app.store.readStream(approvalStreamId(approvalId))).events.filter(
        (e) => e.type === 'ApprovalLinkIssued',
      ).length;
    expect(await issued()).toBe(2);
    const job = {
      id: `payment-mail_retried-${n}_0`,
      data: { approvalId, action: 'bank-uploaded', fileVersion: 1, correlationId: null },
    } as unknown as Job;
    const first = await linkJobHandlers['send-links'](t.started.app, job);
    const again = await linkJobHandlers['send-links'](t.started.app, job);
    expect(first).toEqual({ mails: 2, queued: 2 });
    expect(again).toEqual({ mails: 2, queued: 2 });
    expect(await issued()).toBe(4);
    // The retried job's two mails, once each, with the same links as its first run.
    const all = await linkMails(approvalId, /^NACHA file ready for the bank/, 4);
    expect(new Set(all.map((m) => linkOf(m).token)).size).toBe(4);
  });

  it('verify-token answers the approval, the link’s recipient and what it may do', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const byTo = (to: string) => linkOf(mails.find((m) => m.envelope.to[0] === to)!).token;
    const r = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${byTo(MANAGER)}`);
    expect(r.status).toBe(200);
    expect(r.body.data.approval).toMatchObject({ id: approvalId, status: 'NACHA_GENERATED' });
    expect(r.body.data.user).toEqual({ name: 'Mira Manager', email: MANAGER, role: 'RECIPIENT' });
    expect(r.body.data.statusInfo).toEqual({
      canMarkAsPaid: false,
      isAlreadyPaid: false,
      canMarkAsUploaded: true,
      isAlreadyUploaded: false,
    });
    const other = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${byTo(RECIPIENT)}`);
    expect(other.body.data.user).toEqual({ name: RECIPIENT, email: RECIPIENT, role: 'RECIPIENT' });
    const missing = await api(t.url, 'GET', `${A}/${approvalId}/verify-token`);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ message: 'Missing required parameters' });
    const badAction = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=x&action=pay`);
    expect(badAction.body).toMatchObject({ message: 'Invalid action type' });
  });

  it('confirms on the button, lands on the result page, is noAction the second time, and the history names the recipient', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const mine = linkOf(mails.find((m) => m.envelope.to[0] === RECIPIENT)!);
    const theirs = linkOf(mails.find((m) => m.envelope.to[0] === MANAGER)!);
    expect(resultOf(await press(mine.path))).toEqual({
      action: 'bank-upload',
      approvalId,
      success: 'true',
    });
    expect(await status(approvalId)).toBe('BANK_UPLOADED');
    // Pressed again, or another recipient's link: already done.
    expect(resultOf(await press(mine.path))).toEqual({
      action: 'bank-upload',
      approvalId,
      success: 'true',
      noAction: 'true',
    });
    expect(resultOf(await press(theirs.path))).toMatchObject({ noAction: 'true' });
    const json = await api(t.url, 'POST', `${A}/${approvalId}/bank-uploaded?token=${theirs.token}`);
    expect(json.body).toMatchObject({ success: true, data: { noAction: true, status: 'BANK_UPLOADED' } });
    const page = await (await fetch(`${t.url}${mine.path}`)).text();
    expect(page).toContain('No Action Needed');
    const history = await api(t.url, 'GET', `${A}/${approvalId}/history`, { token: admin });
    const step = history.body.data.find((h: any) => h.action === 'Bank upload confirmed');
    expect(step.userName).toBe(`${RECIPIENT} (e-mail link)`);

    // The bank took it: the payment-completed links, then the payment through the JSON call.
    const paid = await linkMails(approvalId, /^The bank took the file/, 2);
    const payLink = linkOf(paid[0]);
    const info = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${payLink.token}`);
    expect(info.body.data.statusInfo).toEqual({
      canMarkAsPaid: true,
      isAlreadyPaid: false,
      canMarkAsUploaded: false,
      isAlreadyUploaded: true,
    });
    // A bank-upload link cannot pay.
    const wrong = await api(t.url, 'POST', `${A}/${approvalId}/payment-completed?token=${mine.token}`);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({
      error: { code: 'INVALID_TOKEN', details: 'This link is for another action' },
    });
    const done = await api(t.url, 'POST', `${A}/${approvalId}/payment-completed?token=${payLink.token}`);
    expect(done.body).toMatchObject({
      success: true,
      data: { status: 'PAYMENT_COMPLETED', noAction: false },
    });
    expect(resultOf(await press(payLink.path))).toEqual({
      action: 'payment-completed',
      approvalId,
      success: 'true',
      noAction: 'true',
    });
    // Everyone concerned hears it: the manager, the recipient, the creator and approver (one person).
    const told = await linkMails(approvalId, /^Paid: Links & Co/, 3);
    expect(told.map((m) => m.envelope.to[0]).sort()).toEqual([RECIPIENT, MANAGER, t.admin.email].sort());
  });

  it('refuses forged, expired, other-approval, other-action and superseded links with their texts', async () => {
    const approvalId = await generatedApproval();
    const other = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const otherMails = await linkMails(other, /^NACHA file ready for the bank/, 2);
    const good = linkOf(mails[0]);
    const claims = decodeJwt(good.token) as { lid: string; aid: string; act: string; exp: number };
    const secret = t.started.app.config.JWT_SECRET;
    const forged = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a-key-that-is-not-billflows-own-key-0123456789'));
    const expired = await signLinkToken(secret, {
      linkId: claims.lid,
      approvalId,
      action: 'bank-uploaded',
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const [h, p, sig] = good.token.split('.');
    const tampered = `${h}.${p}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const cases: Array<[string, string, string]> = [
      [forged, 'bank-uploaded', 'This link is not valid'],
      [tampered, 'bank-uploaded', 'This link is not valid'],
      [expired, 'bank-uploaded', 'This link has expired'],
      [linkOf(otherMails[0]).token, 'bank-uploaded', 'This link is for another approval'],
      [good.token, 'payment-completed', 'This link is for another action'],
    ];
    for (const [token, action, text] of cases) {
      const q = new URLSearchParams({ action, token }).toString();
      const verify = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?${q}`);
      expect(verify.status, text).toBe(403);
      expect(verify.body, text).toMatchObject({
        success: false,
        code: 'INVALID_TOKEN',
        message: text,
        error: { code: 'INVALID_TOKEN', details: text },
      });
      const page = await fetch(`${t.url}${A}/${approvalId}/confirm-link?${q}`);
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('Access Denied');
      expect(resultOf(await press(`${A}/${approvalId}/confirm-link?${q}`))).toEqual({
        action: action === 'bank-uploaded' ? 'bank-upload' : 'payment-completed',
        approvalId,
        success: 'false',
        error: text,
      });
    }
    // A press without its action: the result page's 'invalid' outcome (no action in the redirect).
    expect(resultOf(await press(`${A}/${approvalId}/confirm-link?token=${good.token}`))).toEqual({
      approvalId,
      success: 'false',
      error: 'Missing required parameters',
    });
    expect(await status(approvalId)).toBe('NACHA_GENERATED');

    // The file regenerated: while the new one is made the status refuses the step; then the old links are replaced.
    // The payments queue is held meanwhile, so the real generate-nacha job cannot make v2 before the test does
    // (it did, under a full run's load); once resumed, it finds v2 made and does nothing.
    const payments = new Queue(PAYMENTS_QUEUE, {
      connection: redisOptions(t.started.app.config.REDIS_URL),
      prefix: queuePrefix(t.started.app.config.REDIS_PREFIX),
    });
    await payments.pause();
    try {
      await run(approvalId, [{ type: 'RequestNacha', reason: 'regenerate', byUserId: adminId, now: now() }]);
      const pending = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${good.token}`);
      expect(pending.status).toBe(409);
      expect(pending.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        error: { code: 'VALIDATION_FAILED', details: 'Cannot update approval with status NACHA_PENDING' },
      });
      await run(approvalId, generated(2, `ACH_LINKS_${n}_v2.txt`).slice(1));
    } finally {
      await payments.resume();
      await payments.close();
    }
    const replaced = 'This link was replaced: the NACHA file was regenerated after it was sent';
    const old = await api(t.url, 'POST', `${A}/${approvalId}/bank-uploaded?token=${good.token}`);
    expect(old.status).toBe(403);
    expect(old.body).toMatchObject({ code: 'INVALID_TOKEN', message: replaced });
    expect(resultOf(await press(good.path))).toMatchObject({ success: 'false', error: replaced });
    // The new file's links arrive and work.
    const fresh = await until('the new file’s links', () => {
      const m = mailsFor(approvalId, /^NACHA file ready for the bank/).filter((x) =>
        x.html?.includes('_v2.txt'),
      );
      return m.length === 2 ? m : null;
    });
    expect(resultOf(await press(linkOf(fresh[0]).path))).toEqual({
      action: 'bank-upload',
      approvalId,
      success: 'true',
    });
  });

  it('ends the links of a recipient removed from the approval; the manager’s still works', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const mine = linkOf(mails.find((m) => m.envelope.to[0] === RECIPIENT)!);
    const theirs = linkOf(mails.find((m) => m.envelope.to[0] === MANAGER)!);
    const removed = await api(t.url, 'PUT', `${A}/${approvalId}/recipients`, {
      body: { recipients: [] },
      token: admin,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const text = 'This link no longer works: its recipient is no longer a recipient of this approval';
    const verify = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${mine.token}`);
    expect(verify.status).toBe(403);
    expect(verify.body).toMatchObject({ code: 'INVALID_TOKEN', message: text });
    const page = await fetch(`${t.url}${mine.path}`);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('Access Denied');
    expect(resultOf(await press(mine.path))).toMatchObject({ success: 'false' });
    const json = await api(t.url, 'POST', `${A}/${approvalId}/bank-uploaded?token=${mine.token}`);
    expect(json.status).toBe(403);
    expect(json.body).toMatchObject({ code: 'INVALID_TOKEN', message: text });
    expect(await status(approvalId)).toBe('NACHA_GENERATED');
    expect(resultOf(await press(theirs.path))).toMatchObject({ success: 'true' });
    expect(await status(approvalId)).toBe('BANK_UPLOADED');
  });

  it('verify-token with a used link answers only what the result needs: no manager, vendors, bills or files', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const mine = linkOf(mails.find((m) => m.envelope.to[0] === RECIPIENT)!);
    const before = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${mine.token}`);
    expect(JSON.stringify(before.body)).toContain(MANAGER);
    expect(resultOf(await press(mine.path))).toMatchObject({ success: 'true' });
    const after = await api(t.url, 'GET', `${A}/${approvalId}/verify-token?token=${mine.token}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ success: true });
    expect(after.body.data).toEqual({
      approval: { id: approvalId, status: 'BANK_UPLOADED' },
      user: null,
      statusInfo: {
        canMarkAsPaid: false,
        isAlreadyPaid: false,
        canMarkAsUploaded: false,
        isAlreadyUploaded: true,
      },
      link: { action: 'bank-uploaded', expiresAt: expect.any(String), stepDone: true },
    });
    const text = JSON.stringify(after.body);
    for (const secret of [MANAGER, RECIPIENT, 'Bob’s Burger Joint', 'ACH_LINKS_', 'file-', 'INV-'])
      expect(text).not.toContain(secret);
  });

  it('refuses to approve, alone or in bulk, an approval nobody could confirm, saying what to add', async () => {
    await api(t.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
      token: admin,
    });
    const alone = async (over: Partial<Extract<ApprovalCommand, { type: 'CreateApproval' }>>) => {
      const approvalId = randomUUID();
      const command = create(approvalId) as Extract<ApprovalCommand, { type: 'CreateApproval' }>;
      await run(approvalId, [{ ...command, ...over }]);
      return { approvalId, billId: command.bills[0].Id };
    };
    const nobody = await alone({ managerId: null, recipients: [] });
    const one = await api(t.url, 'PUT', `${A}/${nobody.approvalId}/approve`, {
      body: { approvedBills: [nobody.billId] },
      token: admin,
    });
    expect(one.status).toBe(409);
    expect(one.body.message).toMatch(/nobody could confirm its payment/);
    expect(one.body.message).toMatch(/Assign a manager or add a recipient/);
    const bulk = await api(t.url, 'POST', `${A}/bulk-approve`, {
      body: { ids: [nobody.approvalId] },
      token: admin,
    });
    expect(bulk.body.data.summary).toMatchObject({ succeeded: 0, failed: 1 });
    expect(bulk.body.data.results[0].error).toMatch(/nobody could confirm its payment/);
    expect(await status(nobody.approvalId)).toBe('PENDING');
    // A recipient added: it may be approved.
    const added = await api(t.url, 'PUT', `${A}/${nobody.approvalId}/recipients`, {
      body: { recipients: [RECIPIENT] },
      token: admin,
    });
    expect(added.status).toBe(200);
    const ok = await api(t.url, 'PUT', `${A}/${nobody.approvalId}/approve`, {
      body: { approvedBills: [nobody.billId] },
      token: admin,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    // A manager and no recipients: the manager confirms.
    const managed = await alone({ recipients: [] });
    const bulkOk = await api(t.url, 'POST', `${A}/bulk-approve`, {
      body: { ids: [managed.approvalId] },
      token: admin,
    });
    expect(bulkOk.body.data.summary).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('signs each press’s outcome for the result page, which reads only its own, unaltered and fresh', async () => {
    const approvalId = await generatedApproval();
    const mails = await linkMails(approvalId, /^NACHA file ready for the bank/, 2);
    const mine = linkOf(mails.find((m) => m.envelope.to[0] === RECIPIENT)!);
    const theirs = linkOf(mails.find((m) => m.envelope.to[0] === MANAGER)!);
    const outcome = (o: string, error: string | null = null) => ({
      approvalId,
      action: 'bank-uploaded',
      outcome: o,
      error,
      expiresAt: expect.any(String),
    });
    const done = await press(mine.path);
    expect(resultOf(done)).toMatchObject({ success: 'true' });
    const success = await readResult(refOf(done)!);
    expect(success.status).toBe(200);
    expect(success.body.data).toEqual(outcome('success'));
    expect(new Date(success.body.data.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect((await readResult(refOf(await press(theirs.path))!)).body.data).toEqual(outcome('no-action'));
    const json = await api(t.url, 'POST', `${A}/${approvalId}/bank-uploaded?token=${theirs.token}`);
    expect((await readResult(json.body.data.resultRef)).body.data).toEqual(outcome('no-action'));
    // A refused press: its outcome and its own text, signed.
    const q = new URLSearchParams({ action: 'bank-uploaded', token: 'not-a-token' }).toString();
    const refused = await press(`${A}/${approvalId}/confirm-link?${q}`);
    expect(resultOf(refused)).toMatchObject({ success: 'false', error: 'This link is not valid' });
    expect((await readResult(refOf(refused)!)).body.data).toEqual(
      outcome('failure', 'This link is not valid'),
    );
    // An approval id the server cannot read: no outcome is signed.
    expect(refOf(await press(`${A}/not-an-approval/confirm-link?${q}`))).toBeNull();
    // Not ours, altered, expired, or none: refused, and the page states nothing.
    const ref = refOf(done)!;
    const forged = await new SignJWT({ aid: approvalId, act: 'bank-uploaded', out: 'success' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('a-key-that-is-not-billflows-own-key-0123456789'));
    const [h, p, sig] = ref.split('.');
    const altered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(ref), aid: randomUUID() })).toString(
      'base64url',
    )}.${sig}`;
    const stale = await signResultRef(
      t.started.app.config.JWT_SECRET,
      { approvalId, action: 'bank-uploaded', outcome: 'success', error: null },
      new Date(Date.now() - 16 * 60_000),
    );
    const aLinkToken = mine.token;
    for (const bad of [
      forged,
      altered,
      stale,
      aLinkToken,
      `${h}.${p}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`,
    ]) {
      const r = await readResult(bad);
      expect(r.status, bad).toBe(403);
      expect(r.body).toMatchObject({ success: false, message: 'This result could not be confirmed' });
    }
    expect((await api(t.url, 'GET', '/api/bill-approval/direct-action-result')).status).toBe(400);
  });

  it('keeps addresses out of the log’s plain data and out of Redis', async () => {
    const events = await sql<{ data: string }>(
      `SELECT data::text AS data FROM es_events WHERE event_type IN ('ApprovalLinkIssued', 'BankUploadConfirmed', 'PaymentCompleted', 'ApprovalCreated')`,
    );
    expect(events.length).toBeGreaterThan(5);
    for (const e of events) expect(e.data).not.toMatch(/links-manager|links-recipient/i);
    const r = t.started.app.redis;
    const dump: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${t.env.REDIS_PREFIX}*`, 'COUNT', 500);
      cursor = next;
      for (const k of keys) {
        const type = await r.type(k);
        if (type === 'hash') dump.push(JSON.stringify(await r.hgetall(k)));
        else if (type === 'string') dump.push(String(await r.get(k)));
      }
    } while (cursor !== '0');
    const all = dump.join('\n');
    expect(all).toContain('payment-mail');
    expect(all).not.toMatch(/links-manager|links-recipient|confirm-link/i);
  });
});
