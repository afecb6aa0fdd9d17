// The bank issue's "Done when", walked as its people meet it, in real Chromium against a real gateway,
// its workers, Postgres, Redis, the QuickBooks simulator, the SMTP catcher and the bank sandbox (a real
// SFTP server answering by account suffix):
// 1. an ADMIN turns the company to SFTP delivery on its page (Bank Connection) and checks it;
// 2. an approval of two vendors is approved on its page; at its cut-off window the system uploads the
//    file with nobody acting (the delayed `deliver` job, promoted: the clock reaching the window); the
//    approval reads Bank Uploaded, the card says "Sent to the bank…", the bank acknowledges it, and the
//    payment-completed link e-mail arrives; its button completes the payment (QuickBooks paid);
// 3. the bank returns one vendor's entry with R03: the approval shows "Returned R03" and "Partly
//    returned", QuickBooks' BillPayment of that bill is voided and the bill open again, the vendor's
//    banking is blocked on its page, and the creator gets the "returned" e-mail;
// 4. a C01 notification of change for the other vendor is a held change an ADMIN approves on the
//    vendor's page; the next approval's file, as the bank received it, pays the corrected account;
// 5. both vendors got their remittance advice (each file's, to the e-mail on record in QuickBooks);
// 6. the second approval's payment link lapses (the server's payment clock and the browser's moved a
//    week and a day on): the card and the old link say so; staff send it again with a reason, and the
//    new e-mail's link completes the step.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qb } from '../services/companies/quickbooks.js';
import { formatUsd } from '../services/mail/format.js';
import { parseAchFile } from '../services/nacha/parser.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { pollBank } from '../services/payments/delivery.js';
import { paymentClock } from '../services/shared/payment-clock.js';
import { queuePrefix } from '../services/shared/queues.js';
import { redisOptions } from '../services/shared/redis.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn as apiSignIn } from '../test/support/http.js';
import { connectedCompany, NACHA_CONFIG, readyToPay, syncVendors } from '../test/support/payments.js';
import { type BankSandbox, startBankSandbox } from '../tools/bank-sandbox/server.js';
import type { QbBill, QbVendor, Realm } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../tools/smtp-catcher.js';
import { BANK_QUEUE } from '../workers/payments/delivery.js';
import {
  ensureWebBuild,
  expectToast,
  launchBrowser,
  openPage,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

const A = '/api/bill-approval/approvals';
const COMPANY = 'Done When Diner';
const BANK_USER = 'done-when-ap';
const BANK_PASSWORD = 'done-when-bank-pass-77';
const RECIPIENT = 'ap.clerk@done-when.test';
const qbApp = { clientId: 'billflow-done-when-e2e', clientSecret: 'done-when-e2e-secret-4242' };
/** The vendor whose entry the bank returns (R03 by its suffix 0003). */
const RETURNED_ACCOUNT = '7300000003';
/** The vendor the bank corrects (C01 by its suffix 0101, to the same number ending 0102). */
const NOC_ACCOUNT = '7300000101';
const CORRECTED_ACCOUNT = '7300000102';
const VENDOR_ROUTING = '011000015';

let sim: QboSandbox;
let bank: BankSandbox;
let catcher: SmtpCatcher;
let bankQueue: Queue;
let stateDir: string;
let app: TestApp;
let browser: Browser;
let admin = '';
let companyId = 0;
let realm: Realm;
/** The vendor the bank returns, and the vendor the bank corrects (two open bills: one a file). */
let returned: { qb: QbVendor; id: number; email: string; bill: QbBill };
let corrected: { qb: QbVendor; id: number; email: string; bills: [QbBill, QbBill] };

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function detail(id: string) {
  return (await api(app.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
}

/** A read from QuickBooks (the simulator) with the company's own token. */
async function qbGet<T>(what: string): Promise<T> {
  const conn = await qb(app.started.app).connections.get(companyId);
  const res = await fetch(`${sim.url}/v3/company/${realm.realmId}/${what}`, {
    headers: { accept: 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

type QbBillRead = {
  Bill: { Balance: number; TotalAmt: number; LinkedTxn: { TxnId: string; TxnType: string }[] };
};
type QbPaymentRead = { BillPayment: { TotalAmt: number; PrivateNote?: string; Line: unknown[] } };

const mailText = (m: CaughtMessage) => `${m.subject}\n${m.text}\n${m.html ?? ''}`;
const mailTo = (to: string, subject: RegExp) => (m: CaughtMessage) =>
  m.to.some((x) => x.toLowerCase() === to.toLowerCase()) && subject.test(m.subject);

/** The link of a mail's button, on this test's gateway (the mail names the app's own address). */
function linkIn(m: CaughtMessage): string {
  const found = (m.html ?? m.text).match(/https?:\/\/[^\s"'<>]+confirm-link\?[^\s"'<>]+/);
  if (!found) throw new Error(`no link in "${m.subject}"`);
  const u = new URL(found[0].replace(/&amp;/g, '&'));
  return `${app.url}${u.pathname}${u.search}`;
}

/** The payment-completed link mail of an approval (its button asks to confirm the payment). */
const paymentLinkMail = (approvalId: string) => (m: CaughtMessage) =>
  mailTo(RECIPIENT, /^The bank took the file: confirm payment for /)(m) && mailText(m).includes(approvalId);

/** A mail's link opened in a browser with no session, its button pressed: the payment is completed. */
async function pressPaymentLink(link: string) {
  const { context, page, errors } = await openPage(browser, app.url);
  try {
    await page.goto(link);
    await page.getByRole('button').first().click();
    await page.waitForURL(/\/direct-action-result\?/, { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('success')).toBe('true');
    await page.getByText('Successfully marked as payment completed').waitFor();
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

async function approveOnScreen(page: Page, id: string) {
  await page.goto(`/approvals/${id}`);
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  // The approve dialog confirms the bills chosen (all by default).
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /Approve/ })
    .last()
    .click();
}

/**
 * The cut-off window reached: the approval's delivery is a `deliver` job on the bank queue, delayed
 * until the window (workers/payments/delivery.ts). Promoting it stands for the clock reaching the
 * window; the system then uploads the file as it would at the window's time, nobody acting.
 */
async function windowReached(approvalId: string) {
  const job = await until(
    async () =>
      (await bankQueue.getDelayed()).find((j) => j.name === 'deliver' && j.data.approvalId === approvalId),
    (j) => j !== undefined,
    `the delayed delivery of ${approvalId}`,
  );
  expect(job!.opts.delay ?? 0).toBeGreaterThan(0);
  await job!.promote();
}

/** The files the bank received from the company (the sandbox's inbox for the company's ODFI). */
async function bankInbox() {
  const r = await fetch(`${bank.hooksUrl}/__bank/files?routing=${NACHA_CONFIG.bankRoutingNumber}`);
  expect(r.status).toBe(200);
  const body = (await r.json()) as {
    odfis: { routing: string; inbox: { name: string; sha256: string }[] }[];
  };
  return body.odfis.find((o) => o.routing === NACHA_CONFIG.bankRoutingNumber)?.inbox ?? [];
}

/**
 * Reads the company's outbox at the bank once, as the 30-s schedule does (services/payments/delivery.ts).
 * The schedule may read it at the same moment and remove a file this read has listed: tried again then.
 */
async function readBankOutbox() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pollBank(app.started.app, companyId, {});
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

/** The open bills of a vendor in the simulator's books. */
const openBills = (v: QbVendor) => realm.bills.filter((b) => b.VendorRef.value === v.Id && b.Balance > 0);

beforeAll(async () => {
  await ensureWebBuild();
  stateDir = mkdtempSync(path.join(tmpdir(), 'billflow-done-when-e2e-'));
  bank = await startBankSandbox({
    stateDir,
    users: [{ routing: NACHA_CONFIG.bankRoutingNumber, username: BANK_USER, password: BANK_PASSWORD }],
    rules: [
      { match: { accountSuffix: '0003' }, answer: { kind: 'return', code: 'R03' } },
      {
        match: { accountSuffix: '0101' },
        answer: { kind: 'noc', code: 'C01', correctedAccountSuffix: '0102' },
      },
    ],
    // Answers wait until the test asks (answer-now): the payment is completed first, as in life.
    answerDelaySeconds: 3600,
  });
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl } }),
    launchBrowser(),
  ]);
  bankQueue = new Queue(BANK_QUEUE, {
    connection: redisOptions(app.started.app.config.REDIS_URL),
    prefix: queuePrefix(app.started.app.config.REDIS_PREFIX),
  });
  admin = (await apiSignIn(app.url, app.admin.email, app.admin.password)).tokens.accessToken;
  const connected = await connectedCompany({ url: app.url, sim, token: admin, app: qbApp, name: COMPANY });
  companyId = connected.companyId;
  realm = connected.realm;
  const account = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(app.url, admin, companyId, { paymentAccount: account.Id });
  const synced = new Map((await syncVendors(app.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  // Vendors with an e-mail on record in QuickBooks (most of the simulator's have one): the remittance
  // advice goes there.
  const payable = realm.vendors.filter((v) => v.Active && v.PrimaryEmailAddr && synced.has(v.Id));
  const c = payable.find((v) => openBills(v).length >= 2);
  const r = payable.find((v) => v.Id !== c?.Id && openBills(v).length >= 1);
  if (!c || !r) throw new Error('the simulator has no two payable vendors with e-mails and open bills');
  corrected = {
    qb: c,
    id: synced.get(c.Id)!,
    email: c.PrimaryEmailAddr!.Address,
    bills: [openBills(c)[0], openBills(c)[1]],
  };
  returned = { qb: r, id: synced.get(r.Id)!, email: r.PrimaryEmailAddr!.Address, bill: openBills(r)[0] };
  for (const [vendorId, accountNumber] of [
    [returned.id, RETURNED_ACCOUNT],
    [corrected.id, NOC_ACCOUNT],
  ] as const) {
    const put = await api(app.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
      body: { routingNumber: VENDOR_ROUTING, accountNumber, accountType: 'checking', bankName: 'BofA' },
      token: admin,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
}, 240_000);

afterAll(async () => {
  await bankQueue?.close();
  await browser?.close();
  await app?.stop();
  await catcher?.stop();
  await sim?.close();
  await bank?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('the bank issue, done', () => {
  it('SFTP set on screen → delivered at the window → acknowledged → paid → R03 returned and voided → C01 applied and paid → remittances → a lapsed link sent again', async () => {
    const { context, page, errors } = await openPage(browser, app.url);
    page.setDefaultTimeout(20_000);
    try {
      await signIn(page, app.admin);

      // 1. The ADMIN turns the company to SFTP against the bank sandbox, on the company's page.
      await page.goto(`/companies/${companyId}`);
      const card = page.getByTestId('bank-connection-card');
      await card.getByRole('radio', { name: /^SFTP/ }).check();
      await card.getByLabel('Host *', { exact: true }).fill('127.0.0.1');
      await card.getByLabel('Port *', { exact: true }).fill(String(bank.sftpPort));
      await card.getByLabel('Username *', { exact: true }).fill(BANK_USER);
      await card.getByLabel('Password', { exact: true }).fill(BANK_PASSWORD);
      await card.getByLabel('Host key fingerprint *', { exact: true }).fill(bank.hostKeyFingerprint());
      await card.getByRole('button', { name: 'Save Connection' }).click();
      await expectToast(page, 'Bank connection saved');
      // Saved, it can be checked: the product logs in to the bank and lists both folders.
      await card.getByRole('button', { name: 'Check connection' }).click();
      await card
        .getByTestId('bank-connection-last-check')
        .getByText('Connection OK')
        .waitFor({ timeout: 30_000 });
      const stored = (await api(app.url, 'GET', `/api/company/companies/${companyId}`, { token: admin })).body
        .data.bankConnection;
      expect(stored).toMatchObject({
        mode: 'sftp',
        host: '127.0.0.1',
        port: bank.sftpPort,
        username: BANK_USER,
        passwordSet: true,
        hostKeyFingerprint: bank.hostKeyFingerprint(),
      });
      expect(await seriousAxeViolations(page)).toEqual([]);

      // 2. An approval of both vendors (one bill each), approved on its page.
      const firstBills = [returned.bill, corrected.bills[0]];
      const created = await api(app.url, 'POST', A, {
        body: { companyId, billIds: firstBills.map((b) => b.Id), recipients: [RECIPIENT] },
        token: admin,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const first = created.body.data.id as string;
      await approveOnScreen(page, first);
      const words = page.getByTestId('bank-delivery-words');
      await expect
        .poll(() => words.textContent(), { timeout: 60_000 })
        .toMatch(/^Waiting for the .* cut-off \(New York\), .* — sent to the bank by the system then$/);
      expect((await detail(first)).status).toBe('NACHA_GENERATED');
      // Nothing reached the bank before the window.
      expect(await bankInbox()).toEqual([]);
      await windowReached(first);
      // Delivered by the system: the card says so and the status moves, live, nobody having pressed anything.
      await expect.poll(() => words.textContent(), { timeout: 60_000 }).toMatch(/^Sent to the bank/);
      await page.getByText('Bank Uploaded', { exact: true }).first().waitFor();
      const uploaded = await detail(first);
      expect(uploaded.status).toBe('BANK_UPLOADED');
      expect(uploaded.bankUploadReason).toBeNull();
      // The history says the system sent it at the window: no person, no user, no link's recipient.
      const history = (await api(app.url, 'GET', `${A}/${first}/history`, { token: admin })).body
        .data as Array<{
        action: string;
        userId: number | null;
        userName: string | null;
        actorKind: string;
        details: string | null;
      }>;
      const upload = history.filter((h) => h.action === 'Uploaded to the bank');
      expect(upload, JSON.stringify(history.map((h) => h.action))).toHaveLength(1);
      expect(upload[0]).toMatchObject({ userId: null, actorKind: 'system' });
      expect(upload[0].userName).toMatch(/^System/);
      expect(upload[0].details).toMatch(/sent over SFTP at the cut-off window$/);
      const inbox = await bankInbox();
      expect(inbox.map((f) => f.name)).toEqual([
        uploaded.nachaFiles.find((f: { current: boolean }) => f.current).fileName,
      ]);
      // The bank's acknowledgement, read from its outbox (the 30-s schedule would read it too).
      await readBankOutbox();
      await expect
        .poll(() => words.textContent(), { timeout: 30_000 })
        .toMatch(/ — the bank acknowledged it$/);
      // The payment-completed link e-mail; its button completes the payment, and QuickBooks records it.
      const firstLink = await catcher.waitFor(paymentLinkMail(first), 60_000);
      // The system uploaded the file: no one was asked to upload it by hand (it would go twice).
      expect(
        catcher
          .messages()
          .filter((m) => /^NACHA file ready for the bank/.test(m.subject) && mailText(m).includes(first)),
      ).toEqual([]);
      await pressPaymentLink(linkIn(firstLink));
      const paid = await until(
        () => detail(first),
        (d) => d.status === 'PAYMENT_COMPLETED' && d.qbPaymentSyncStatus === 'SUCCESS',
        'the payment recorded in QuickBooks',
      );
      expect(paid.status).toBe('PAYMENT_COMPLETED');
      const paidBill = await qbGet<QbBillRead>(`bill/${returned.bill.Id}`);
      expect(paidBill.Bill.Balance).toBe(0);
      const billPaymentId = paidBill.Bill.LinkedTxn.find((t) => t.TxnType.startsWith('BillPayment'))?.TxnId;
      expect(billPaymentId).toBeTruthy();
      expect((await qbGet<QbPaymentRead>(`billpayment/${billPaymentId}`)).BillPayment.TotalAmt).toBe(
        returned.bill.Balance,
      );

      // 3. The bank's answers come (a return for the account ending 0003, a NOC for 0101), read from its outbox.
      const answered = (await (
        await fetch(`${bank.hooksUrl}/__bank/answer-now`, { method: 'POST' })
      ).json()) as {
        written: string[];
      };
      expect(answered.written.some((n) => /^RET_/.test(n))).toBe(true);
      expect(answered.written.some((n) => /^COR_/.test(n))).toBe(true);
      await readBankOutbox();
      // Shown live on the approval: the return, beside the status.
      await page.getByTestId('bank-entries-card').waitFor({ timeout: 30_000 });
      await page
        .getByText(/^Returned R03/)
        .first()
        .waitFor({ timeout: 30_000 });
      await expect
        .poll(() => page.getByTestId('bank-payment-state').first().textContent(), { timeout: 30_000 })
        .toBe('Partly returned');
      expect(await seriousAxeViolations(page)).toEqual([]);
      // QuickBooks: that bill's BillPayment voided, the bill open again; the other vendor's bill stays paid.
      await until(
        () => qbGet<QbPaymentRead>(`billpayment/${billPaymentId}`),
        (p) => p.BillPayment.TotalAmt === 0 && (p.BillPayment.PrivateNote ?? '').startsWith('Voided'),
        'the BillPayment voided',
      );
      expect((await qbGet<QbBillRead>(`bill/${returned.bill.Id}`)).Bill.Balance).toBe(returned.bill.Balance);
      expect((await qbGet<QbBillRead>(`bill/${corrected.bills[0].Id}`)).Bill.Balance).toBe(0);
      // The returned vendor's banking is blocked, on its page.
      await page.goto(`/vendors/${returned.id}`);
      const blocked = page.getByText(/^Payments blocked: R03/);
      await blocked.waitFor({ timeout: 30_000 });
      expect(await blocked.textContent()).toMatch(/change the bank details/);
      expect(
        (await api(app.url, 'GET', `/api/vendors/${returned.id}`, { token: admin })).body.data.bankingBlock
          ?.returnCode,
      ).toBe('R03');
      // The creator hears of it.
      const returnedMail = await catcher.waitFor(
        mailTo(app.admin.email, new RegExp(`^Payment returned for ${COMPANY}: .* \\(R03\\)$`)),
        60_000,
      );
      expect(returnedMail.subject).toContain(returned.qb.DisplayName);
      expect(returnedMail.subject).toContain(formatUsd(Math.round(returned.bill.Balance * 100)));
      expect(mailText(returnedMail)).toContain('0003');

      // 4. The C01 for the other vendor is a held change from the bank: an ADMIN approves it on the vendor's page.
      await page.goto(`/vendors/${corrected.id}`);
      const held = page.getByTestId('pending-banking-change');
      await held.getByText('Notification of change', { exact: true }).waitFor({ timeout: 60_000 });
      expect(await held.getByTestId('pending-awaiting').textContent()).toBe(
        "The bank's notification of change: an ADMIN must approve or reject it",
      );
      expect(await held.getByTestId('pending-account').textContent()).toMatch(/^\*+0101 → \*+0102$/);
      await held.getByRole('button', { name: 'Approve Change' }).click();
      const dialog = page.getByRole('dialog', { name: 'Approve Bank Details Change' });
      await dialog.getByLabel('Reason *').fill('The bank corrected the account number (C01)');
      await dialog.getByRole('button', { name: 'Approve Change' }).click();
      await expectToast(page, 'Bank details change approved: it is live');
      await held.waitFor({ state: 'detached' });
      expect(await page.getByTestId('account-number').textContent()).toMatch(/^\*+0102$/);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The next file pays the corrected account: a new approval of the vendor's other bill.
      const again = await api(app.url, 'POST', A, {
        body: { companyId, billIds: [corrected.bills[1].Id], recipients: [RECIPIENT] },
        token: admin,
      });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      const second = again.body.data.id as string;
      await approveOnScreen(page, second);
      await expect
        .poll(() => page.getByTestId('bank-delivery-words').textContent(), { timeout: 60_000 })
        .toMatch(/^Waiting for the .* cut-off/);
      await windowReached(second);
      await expect
        .poll(() => page.getByTestId('bank-delivery-words').textContent(), { timeout: 60_000 })
        .toMatch(/^Sent to the bank/);
      const secondUploaded = await until(
        () => detail(second),
        (d) => d.status === 'BANK_UPLOADED',
        'the second approval uploaded',
      );
      const current = secondUploaded.nachaFiles.find((f: { current: boolean }) => f.current) as {
        fileName: string;
        batchNumber: number;
      };
      // The file as the bank received it (its inbox), the same bytes its listing names.
      const received = (await bankInbox()).find((f) => f.name === current.fileName);
      expect(received, JSON.stringify(await bankInbox())).toBeTruthy();
      const text = readFileSync(
        path.join(stateDir, NACHA_CONFIG.bankRoutingNumber, 'inbox', current.fileName),
        'latin1',
      );
      expect(validateAchFile(text)).toEqual([]);
      const batch = parseAchFile(text).batches.find((b) => b.header.batchNumber === current.batchNumber);
      expect(batch, `batch ${current.batchNumber} in ${current.fileName}`).toBeTruthy();
      const entries = batch!.entries.filter((e) => e.transactionCode === 22 || e.transactionCode === 32);
      expect(entries.map((e) => e.dfiAccountNumber.trim())).toEqual([CORRECTED_ACCOUNT]);
      expect(entries[0].amountCents).toBe(Math.round(corrected.bills[1].Balance * 100));
      expect(text).not.toContain(NOC_ACCOUNT);

      // 5. Each vendor's remittance advice, to its e-mail on record: both of the first file, and the
      // corrected vendor's of the second file to the account ending 0102.
      const remittance = (to: string, cents: number) =>
        catcher.waitFor(
          (m) =>
            mailTo(to, new RegExp(`^Payment from ${COMPANY}: `))(m) &&
            m.subject.includes(`${formatUsd(cents)},`),
          60_000,
        );
      const toReturned = await remittance(returned.email, Math.round(returned.bill.Balance * 100));
      expect(mailText(toReturned)).toContain(returned.bill.DocNumber!);
      const toCorrected = await remittance(corrected.email, Math.round(corrected.bills[0].Balance * 100));
      expect(mailText(toCorrected)).toContain(corrected.bills[0].DocNumber!);
      expect(mailText(toCorrected)).toContain('0101');
      const toCorrectedAgain = await remittance(
        corrected.email,
        Math.round(corrected.bills[1].Balance * 100),
      );
      expect(mailText(toCorrectedAgain)).toContain(corrected.bills[1].DocNumber!);
      expect(mailText(toCorrectedAgain)).toContain('0102');
      expect(mailText(toCorrectedAgain)).not.toContain(CORRECTED_ACCOUNT);

      // 6. A lapsed link sent again. A week and a day pass: the server's payment clock (the one a link's
      // expiry is set and checked on) and the browser's clock move on together. The card says the
      // link expired, the old link says so too, staff send it again with a reason, and the new e-mail's
      // link completes the step.
      const firstMail = await catcher.waitFor(paymentLinkMail(second), 60_000);
      const oldLink = linkIn(firstMail);
      const shift = (app.started.app.config.LINK_TTL_DAYS + 1) * 86_400_000;
      paymentClock.now = () => new Date(Date.now() + shift);
      try {
        const later = await context.newPage();
        later.setDefaultTimeout(10_000);
        later.on('pageerror', (err) => errors.push(err.message));
        await later.clock.install({ time: new Date(Date.now() + shift) });
        await later.goto(`/approvals/${second}`);
        const link = later.getByTestId('payment-link');
        await link
          .getByTestId('payment-link-standing')
          .getByText(/^Link expired .+: send it again$/)
          .waitFor();
        const lapsed = await openPage(browser, app.url);
        try {
          const answer = await lapsed.page.goto(oldLink);
          expect(answer?.status()).toBe(403);
          await lapsed.page.getByText('This link has expired').waitFor();
        } finally {
          await lapsed.context.close();
        }
        await link.getByRole('button', { name: 'Send link again' }).click();
        const resend = later.getByRole('dialog', { name: 'Send the payment link again' });
        await resend.getByLabel('Reason *').fill('The first link lapsed while the clerk was away');
        await resend.getByRole('button', { name: 'Send link again' }).click();
        await resend.waitFor({ state: 'detached' });
        await link
          .getByTestId('payment-link-standing')
          .getByText(/^Link sent /)
          .waitFor({ timeout: 30_000 });
        const newMail = await catcher.waitFor(
          (m) => paymentLinkMail(second)(m) && linkIn(m) !== oldLink,
          60_000,
        );
        expect(newMail.id).not.toBe(firstMail.id);
        await pressPaymentLink(linkIn(newMail));
        await later.getByText('Payment Completed', { exact: true }).first().waitFor({ timeout: 30_000 });
        expect((await detail(second)).status).toBe('PAYMENT_COMPLETED');
        const history = (await api(app.url, 'GET', `${A}/${second}/history`, { token: admin })).body.data;
        expect(history.map((h: { reason: string | null }) => h.reason)).toContain(
          'The first link lapsed while the clerk was away',
        );
      } finally {
        paymentClock.now = () => new Date();
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);
});
