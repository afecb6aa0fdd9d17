// A lapsed payment link never strands an approval, end to end on Postgres, Redis, the workers and the
// SMTP catcher: a link past its days is refused and "send the link again" mails a fresh one that
// completes the step; a link signed with an earlier signing key is refused and a resend works; an
// approval with nobody to mail is refused a resend with the advice, and staff confirm the step in the
// app with a reason the history and the detail show; a USER is refused both; each resend mails again,
// and one resend's job run again mails nothing twice.
import { randomUUID } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillSnapshot } from '../../../schema/approvals/events.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { api, gql, signIn } from '../../../test/support/http.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../../../tools/smtp-catcher.js';
import { linkJobHandlers } from '../../../workers/approvals/link-jobs.js';
import { paymentMailProcessManager } from '../../../workers/approvals/payments.js';
import { MAIL_QUEUE, mailJobId } from '../../../workers/mail/mail.js';
import { queuePrefix } from '../../shared/queues.js';
import { redisOptions } from '../../shared/redis.js';
import { type ApprovalCommand, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { signLinkToken } from './link-token.js';
import { NOBODY_TO_SEND } from './payment-decider.js';

const PUBLIC = 'https://billflow.test';
const A = '/api/bill-approval/approvals';
const MANAGER = 'rhea.manager@resend-manager.test';
const RECIPIENT = 'Otto.Owner@resend-recipient.test';
const READY = /^NACHA file ready for the bank/;
const DAY = 86_400_000;

let t: TestApp;
let catcher: SmtpCatcher;
let admin = '';
let adminId = 0;
let user = '';
let companyId = 0;
let managerId = 0;

/** Several commands as one append, through the decider (as approval-links.int.test.ts does). */
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

const iso = (ms = Date.now()) => new Date(ms).toISOString();
const bill = (id: string): BillSnapshot => ({
  Id: id,
  DocNumber: `INV-${id}`,
  TxnDate: '2025-06-01',
  DueDate: '2025-06-30',
  TotalAmt: 310.25,
  Balance: 310.25,
  CurrencyRef: 'USD',
  VendorRef: { value: '71', name: 'Harbor Supply' },
  VendorInfo: { CompanyName: 'Harbor Supply' },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
});

/** A NACHA_GENERATED approval; `withManager` false: its only recipient is the one who approved it. */
async function generatedApproval(withManager = true): Promise<string> {
  const approvalId = randomUUID();
  const billId = `r${approvalId.slice(0, 6)}`;
  await run(approvalId, [
    {
      type: 'CreateApproval',
      approvalId,
      companyId,
      priority: 'HIGH',
      managerId: withManager ? managerId : null,
      byUserId: adminId,
      bills: [bill(billId)],
      vendorContacts: [],
      recipients: [RECIPIENT],
      confirmedDuplicates: [],
      expiresAt: iso(Date.now() + DAY),
      now: iso(),
    },
    {
      type: 'ApproveApproval',
      approvedBillIds: [billId],
      byUserId: adminId,
      managerEmail: withManager ? MANAGER : null,
      policy: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      banking: [],
      now: iso(),
    },
    { type: 'RequestNacha', reason: 'approved', byUserId: null, now: iso() },
    {
      type: 'RecordNachaGenerated',
      version: 1,
      file: {
        fileId: `file-${approvalId}`,
        fileName: `ACH_RESEND_${approvalId.slice(0, 8)}.txt`,
        batchNumber: 1,
        fileIdModifier: 'A',
        effectiveDate: '2025-06-03',
        entryCount: 1,
        totalCreditCents: 31_025,
        totalDebitCents: 0,
        balanced: false,
        vendors: [
          { qbVendorId: '71', name: 'Harbor Supply', amountCents: 31_025, accountLast4: '4321', billIds: [] },
        ],
        skippedBills: [],
      },
      now: iso(),
    },
  ]);
  return approvalId;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const mailsFor = (approvalId: string, subject: RegExp) =>
  catcher.messages().filter((m) => subject.test(m.subject) && (m.html ?? '').includes(approvalId));
const mailsTo = (approvalId: string, subject: RegExp, to: string, count: number) =>
  until(`${count} mails to ${to}`, () => {
    const m = mailsFor(approvalId, subject).filter((x) => x.envelope.to[0] === to);
    return m.length >= count ? m : null;
  });

function linkOf(m: CaughtMessage): { path: string; token: string } {
  const href =
    /href="(https:\/\/billflow\.test\/api\/bill-approval\/approvals\/[^"]+confirm-link[^"]+)"/.exec(
      m.html ?? '',
    );
  if (!href) throw new Error(`no link in ${m.subject}`);
  const u = new URL(href[1].replace(/&amp;/g, '&'));
  return { path: `${u.pathname}${u.search}`, token: u.searchParams.get('token')! };
}

/** The JSON confirmation the link's page posts (same rules as its button). */
const pressJson = (approvalId: string, token: string, action = 'bank-uploaded') =>
  api(t.url, 'POST', `${A}/${approvalId}/${action}?token=${encodeURIComponent(token)}`);
const resend = (approvalId: string, reason: string, token = admin) =>
  api(t.url, 'POST', `${A}/${approvalId}/links/resend`, { body: { reason }, token });
const confirmStep = (approvalId: string, body: Record<string, unknown>, token = admin) =>
  api(t.url, 'POST', `${A}/${approvalId}/confirm-step`, { body, token });
const status = async (approvalId: string) =>
  (await t.started.app.commands.load(approvalDecider, approvalStreamId(approvalId))).state.status;
const detail = async (id: string) => (await api(t.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
const storedOf = async (approvalId: string, type: string) =>
  (await t.started.app.store.readStream(approvalStreamId(approvalId))).events.filter((e) => e.type === type);

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
    body: { name: 'Resend & Co' },
    token: admin,
  });
  companyId = c.body.data.id;
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Rhea', lastName: 'Manager', email: MANAGER },
    token: admin,
  });
  managerId = m.body.data.id;
  await api(t.url, 'POST', '/api/auth/register', {
    body: { email: 'clerk@resend.test', password: 'Passw0rd-123', role: 'USER' },
    token: admin,
  });
  user = (await signIn(t.url, 'clerk@resend.test', 'Passw0rd-123')).tokens.accessToken;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await catcher?.stop();
});

describe('a payment link that cannot serve', () => {
  it('refuses a link past its days; a resend mails the manager a fresh one that completes the step', async () => {
    const approvalId = await generatedApproval();
    const [first] = await mailsTo(approvalId, READY, MANAGER, 1);
    const firstLid = decodeJwt(linkOf(first).token).lid;
    // A link sent eight days ago, as its mail would carry it: its seven days are over.
    const sent = Date.now() - 8 * DAY;
    const lapsedId = randomUUID();
    await run(approvalId, [
      {
        type: 'IssueLink',
        linkId: lapsedId,
        action: 'bank-uploaded',
        recipient: MANAGER,
        expiresAt: iso(sent + 7 * DAY),
        now: iso(sent),
      },
    ]);
    const lapsed = await signLinkToken(t.started.app.config.JWT_SECRET, {
      linkId: lapsedId,
      approvalId,
      action: 'bank-uploaded',
      expiresAt: iso(sent + 7 * DAY),
    });
    const refused = await pressJson(approvalId, lapsed);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'INVALID_TOKEN', message: 'This link has expired' });

    const r = await resend(approvalId, 'The link lapsed while Rhea was on leave');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Link sent again to 2 people');
    const [, fresh] = await mailsTo(approvalId, READY, MANAGER, 2);
    const claims = decodeJwt(linkOf(fresh).token);
    expect(claims.lid).not.toBe(firstLid);
    expect((claims.exp as number) * 1000 - Date.now()).toBeGreaterThan(6.9 * DAY);
    // The detail says when the step's link was last sent and until when it works.
    const shown = await until('the fresh link on the detail', async () => {
      const d = await detail(approvalId);
      return d.paymentLinkExpiresAt && Date.parse(d.paymentLinkExpiresAt) > Date.now() + 6.9 * DAY ? d : null;
    });
    expect(Date.parse(shown.paymentLinkSentAt)).toBeGreaterThan(sent);

    const pressed = await pressJson(approvalId, linkOf(fresh).token);
    expect(pressed.status, JSON.stringify(pressed.body)).toBe(200);
    expect(await status(approvalId)).toBe('BANK_UPLOADED');
  });

  it('refuses a link signed with an earlier signing key; a resend works', async () => {
    const approvalId = await generatedApproval();
    const [first] = await mailsTo(approvalId, READY, MANAGER, 1);
    const claims = decodeJwt(linkOf(first).token) as { lid: string; exp: number };
    const oldKey = await signLinkToken('the-signing-key-before-it-was-rotated-0123456789', {
      linkId: claims.lid,
      approvalId,
      action: 'bank-uploaded',
      expiresAt: iso(claims.exp * 1000),
    });
    const refused = await pressJson(approvalId, oldKey);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'INVALID_TOKEN', message: 'This link is not valid' });

    // Through GraphQL this time: the same command, the same answer.
    const g = await gql(
      t.url,
      'mutation($id: String!, $reason: String!) { resendPaymentLink(id: $id, reason: $reason) { message approval { id status } } }',
      { id: approvalId, reason: 'Links signed before the key rotation no longer verify' },
      admin,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.resendPaymentLink).toEqual({
      message: 'Link sent again to 2 people',
      approval: { id: approvalId, status: 'NACHA_GENERATED' },
    });
    const [, fresh] = await mailsTo(approvalId, READY, MANAGER, 2);
    expect((await pressJson(approvalId, linkOf(fresh).token)).status).toBe(200);
    expect(await status(approvalId)).toBe('BANK_UPLOADED');
  });

  it('with nobody to mail: the resend says what to do instead, and staff confirm in the app with a reason', async () => {
    const approvalId = await generatedApproval(false);
    await mailsTo(approvalId, READY, RECIPIENT, 1);
    // The only recipient removed: no manager, no recipients, nobody a link could go to.
    await run(approvalId, [{ type: 'UpdateRecipients', recipients: [], now: iso() }]);
    const r = await resend(approvalId, 'Nobody got the first link');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ success: false, message: NOBODY_TO_SEND });

    const noReason = await confirmStep(approvalId, { reason: ' ' });
    expect(noReason.status).toBe(400);
    const reason = 'Bank portal shows the file accepted on Dec 6';
    const ok = await confirmStep(approvalId, { reason, action: 'bank-uploaded' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.message).toBe('Bank upload confirmed in the app');
    expect(ok.body.data).toMatchObject({ status: 'BANK_UPLOADED', bankUploadReason: reason });
    // The same dialog sent twice does not confirm the next step.
    const twice = await confirmStep(approvalId, { reason, action: 'bank-uploaded' });
    expect(twice.status).toBe(409);
    expect(await status(approvalId)).toBe('BANK_UPLOADED');

    const paid = await confirmStep(approvalId, { reason: 'Statement shows the credits' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data).toMatchObject({
      status: 'PAYMENT_COMPLETED',
      paymentCompletedReason: 'Statement shows the credits',
    });
    const h = await api(t.url, 'GET', `${A}/${approvalId}/history`, { token: admin });
    const upload = h.body.data.find((x: { action: string }) => x.action === 'Bank upload confirmed');
    expect(upload.details).toMatch(new RegExp(`Confirmed in the app by .+: ${reason}$`));
    expect(upload).toMatchObject({ actorKind: 'user', userId: adminId, reason });
    // A status with no step waiting refuses both.
    expect((await resend(approvalId, 'Too late now')).status).toBe(409);
    expect((await confirmStep(approvalId, { reason: 'Too late now' })).status).toBe(409);
  });

  it('refuses a USER both', async () => {
    const approvalId = await generatedApproval();
    expect((await resend(approvalId, 'I would like a new link', user)).status).toBe(403);
    expect((await confirmStep(approvalId, { reason: 'The bank took it' }, user)).status).toBe(403);
    expect(await storedOf(approvalId, 'PaymentLinkResendRequested')).toHaveLength(0);
    expect(await status(approvalId)).toBe('NACHA_GENERATED');
  });

  it('mails again on a second resend, and never twice for one resend', async () => {
    const approvalId = await generatedApproval();
    await mailsTo(approvalId, READY, MANAGER, 1);
    expect((await resend(approvalId, 'First resend: mail bounced')).status).toBe(200);
    await mailsTo(approvalId, READY, MANAGER, 2);
    expect((await resend(approvalId, 'Second resend: still not there')).status).toBe(200);
    const third = await mailsTo(approvalId, READY, MANAGER, 3);
    expect(new Set(third.map((m) => decodeJwt(linkOf(m).token).lid)).size).toBe(3);

    // The first resend's job, run again with its id (a retry, a redelivery): the same links, no new mail.
    const [request] = await storedOf(approvalId, 'PaymentLinkResendRequested');
    const [reaction] = await paymentMailProcessManager.react(request);
    const issued = (await storedOf(approvalId, 'ApprovalLinkIssued')).length;
    const job = { id: reaction.jobId, name: 'send-links', queueName: 'payment-mail', data: reaction.data };
    expect(await linkJobHandlers['send-links'](t.started.app, job as unknown as Job)).toEqual({
      mails: 2,
      queued: 2,
    });
    expect((await storedOf(approvalId, 'ApprovalLinkIssued')).length).toBe(issued);
    const queue = new Queue(MAIL_QUEUE, {
      connection: redisOptions(t.env.REDIS_URL),
      prefix: queuePrefix(t.env.REDIS_PREFIX),
    });
    try {
      for (const index of [0, 1]) {
        const key = `${reaction.jobId}_${index}`.replace(/[^A-Za-z0-9_-]/g, '_');
        const mail = await queue.getJob(mailJobId(key));
        // The mail job that sent it, kept and not run again; its delivery recorded once.
        expect(await mail?.getState()).toBe('completed');
        expect(mail?.attemptsMade).toBe(1);
        expect(await sql('SELECT key FROM mail_deliveries WHERE key = $1', [key])).toHaveLength(1);
      }
    } finally {
      await queue.close();
    }
    expect(mailsFor(approvalId, READY).filter((m) => m.envelope.to[0] === MANAGER)).toHaveLength(3);
  });
});
