// The money path in Chromium, end to end, on the real gateway, workers,
// Postgres, Redis, the QuickBooks simulator and the SMTP catcher: a moderator approves on the detail
// page → NACHA_PENDING → NACHA_GENERATED with a file the project's validator accepts → the bank-upload
// e-mail → fetching its link changes nothing → its button confirms the upload and lands on the
// public result page → another browser's open detail moves without a reload → payment completed
// through the next e-mail's link → BillPayments in the simulator, balances 0, the sync card SUCCESS.
// Then, with QuickBooks refusing one bill once: PARTIAL_SUCCESS, Retry on the card, SUCCESS, and the
// simulator's log shows each bill paid once.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qb } from '../services/companies/quickbooks.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn as apiSignIn } from '../test/support/http.js';
import { readyToPay, syncVendors } from '../test/support/payments.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../tools/smtp-catcher.js';
import { createUser, ensureWebBuild, launchBrowser, openPage, signIn } from './support/browser.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-e2e-payments', clientSecret: 'e2e-payments-secret-value' };
const RECIPIENT = 'ap.clerk@flow-client.test';

let sim: QboSandbox;
let catcher: SmtpCatcher;
let t: TestApp;
let browser: Browser;
let admin = '';
let companyId = 0;
let realm: Realm;
let moderator: { email: string; password: string; id: number };
const vendorIds = new Map<string, number>();

/** The link of a mail's button, on this test's gateway (the mail names the app's own address). */
function linkIn(m: CaughtMessage): string {
  const found = (m.html ?? m.text).match(/https?:\/\/[^\s"'<>]+confirm-link\?[^\s"'<>]+/);
  if (!found) throw new Error(`no link in "${m.subject}"`);
  const u = new URL(found[0].replace(/&amp;/g, '&'));
  return `${t.url}${u.pathname}${u.search}`;
}

const mailTo = (to: string, subject: RegExp) => (m: CaughtMessage) =>
  m.to.some((x) => x.toLowerCase() === to) && subject.test(m.subject);

/** A read from QuickBooks (the simulator) with the company's own token. */
async function qbGet(path: string) {
  const conn = await qb(t.started.app).connections.get(companyId);
  const res = await fetch(`${sim.url}/v3/company/${realm.realmId}/${path}`, {
    headers: { accept: 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
  });
  return (await res.json()) as { Bill: { Balance: number } };
}

async function detail(id: string) {
  return (await api(t.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An approval of bills whose vendors have banking, created by the admin (the moderator approves). */
async function approvalOf(bills: QbBill[]) {
  const c = await api(t.url, 'POST', A, {
    body: { companyId, billIds: bills.map((b) => b.Id), recipients: [RECIPIENT] },
    token: admin,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return c.body.data.id as string;
}

const used = new Set<string>();
/** Open bills of two vendors (two of the first, one of the second), none used before. */
function billsOfTwoVendors(): QbBill[] {
  const byVendor = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && !used.has(b.Id) && vendorIds.has(b.VendorRef.value))
      byVendor.set(b.VendorRef.value, [...(byVendor.get(b.VendorRef.value) ?? []), b]);
  const vendors = [...byVendor.values()].filter((bs) => bs.length >= 2);
  const chosen = [...vendors[0].slice(0, 2), ...vendors[1].slice(0, 1)];
  for (const b of chosen) used.add(b.Id);
  return chosen;
}

async function approveOnScreen(page: Page, id: string) {
  await page.goto(`${t.url}/approvals/${id}`);
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  // The approve dialog confirms the bills chosen (all by default).
  const dialog = page.getByRole('dialog');
  await dialog
    .getByRole('button', { name: /Approve/ })
    .last()
    .click();
}

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
  admin = (await apiSignIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  moderator = await createUser(t.url, t.admin, 'MODERATOR');
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'Flow Foods' },
    token: admin,
  });
  companyId = c.body.data.id;
  const { realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: admin,
    companyId,
    app: qbApp,
    realmIndex: 0,
  });
  realm = sim.realms().find((r) => r.realmId === realmId)!;
  // The creator may not approve (the default); the moderator sees every company's approvals.
  const bank = realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(t.url, admin, companyId, { creatorMayNotApprove: true, paymentAccount: bank.Id });
  for (const [i, v] of (await syncVendors(t.url, admin, companyId)).entries()) {
    if (!v.active) continue;
    const r = await api(t.url, 'PUT', `/api/vendors/${v.id}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: `55500${1000 + i}`,
        accountType: 'checking',
        bankName: 'BofA',
      },
      token: admin,
    });
    if (r.status === 200) vendorIds.set(v.qbVendorId, v.id);
  }
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await catcher?.stop();
  await sim?.close();
});

describe('the money path', () => {
  it('approve → file → bank upload by e-mail link → live elsewhere → paid by link → QuickBooks paid', async () => {
    const bills = billsOfTwoVendors();
    const id = await approvalOf(bills);
    const { context: modCtx, page } = await openPage(browser, t.url);
    const { context: watchCtx, page: watcher } = await openPage(browser, t.url);
    try {
      await signIn(page, moderator);
      await signIn(watcher, t.admin);
      await watcher.goto(`${t.url}/approvals/${id}`);
      await approveOnScreen(page, id);
      // The file is asked for by itself; the detail shows it generated (NACHA card), live.
      await page.getByText('NACHA Generated', { exact: true }).first().waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: /Download NACHA File/ }).waitFor();
      const d = await detail(id);
      expect(d.status).toBe('NACHA_GENERATED');
      const file = await fetch(`${t.url}${d.nachaFileUrl}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(file.status).toBe(200);
      const text = await file.text();
      expect(validateAchFile(text)).toEqual([]);
      expect(d.nachaTotalAmount).toBeCloseTo(
        bills.reduce((s, b) => s + b.Balance, 0),
        2,
      );

      // The bank-upload e-mail reached the recipient; fetching its link (a mail scanner) changes nothing.
      const uploadMail = await catcher.waitFor(mailTo(RECIPIENT, /bank|upload/i), 20_000);
      const link = linkIn(uploadMail);
      expect((await fetch(link)).status).toBe(200);
      expect((await fetch(link, { method: 'HEAD' })).status).toBe(200);
      expect((await detail(id)).status).toBe('NACHA_GENERATED');

      // The recipient opens the link in a browser with no session and presses the button.
      const { context: mailCtx, page: mailPage } = await openPage(browser, t.url);
      try {
        await mailPage.goto(link);
        await mailPage.getByRole('button').first().click();
        await mailPage.waitForURL(/\/direct-action-result\?/);
        expect(new URL(mailPage.url()).searchParams.get('success')).toBe('true');
        await mailPage.getByText('Successfully uploaded to bank').waitFor();
      } finally {
        await mailCtx.close();
      }
      // The other browser's open detail moved without a reload.
      await watcher.getByText('Bank Uploaded', { exact: true }).first().waitFor({ timeout: 10_000 });

      // The payment-completed e-mail; its link pays.
      const paidMail = await catcher.waitFor(mailTo(RECIPIENT, /payment/i), 20_000);
      const { context: payCtx, page: payPage } = await openPage(browser, t.url);
      try {
        await payPage.goto(linkIn(paidMail));
        await payPage.getByRole('button').first().click();
        await payPage.waitForURL(/\/direct-action-result\?/);
        await payPage.getByText('Successfully marked as payment completed').waitFor();
      } finally {
        await payCtx.close();
      }
      // QuickBooks: one BillPayment per bill, balances 0, the sync card SUCCESS (live).
      await watcher.getByText('Success', { exact: true }).first().waitFor({ timeout: 30_000 });
      const after = await detail(id);
      expect(after.status).toBe('PAYMENT_COMPLETED');
      expect(after.qbPaymentSyncStatus).toBe('SUCCESS');
      for (const b of bills) expect((await qbGet(`bill/${b.Id}`)).Bill.Balance).toBe(0);
      const log = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
        paidBillIds?: string[];
      }>;
      const paidIds = log.flatMap((r) => r.paidBillIds ?? []);
      for (const b of bills) expect(paidIds.filter((x) => x === b.Id)).toHaveLength(1);
    } finally {
      await modCtx.close();
      await watchCtx.close();
    }
  }, 120_000);

  it('one bill refused by QuickBooks: PARTIAL_SUCCESS, Retry on the card, SUCCESS, each bill paid once', async () => {
    const bills = billsOfTwoVendors();
    const id = await approvalOf(bills);
    const mod = (await apiSignIn(t.url, moderator.email, moderator.password)).tokens.accessToken;
    expect(
      (
        await api(t.url, 'PUT', `${A}/${id}/approve`, {
          body: { approvedBills: bills.map((b) => b.Id) },
          token: mod,
        })
      ).status,
    ).toBe(200);
    await until(
      () => detail(id),
      (d) => d.status === 'NACHA_GENERATED',
      'the file',
    );
    const refused = bills[2].Id;
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ method: 'POST', billId: refused, kind: 'validation', count: 1 }] }),
    });
    for (const subject of [/bank|upload/i, /payment/i]) {
      const mail = await catcher.waitFor(
        (m) => mailTo(RECIPIENT, subject)(m) && (m.html ?? m.text).includes(id),
        20_000,
      );
      const press = await fetch(linkIn(mail), { method: 'POST', redirect: 'manual' });
      expect(press.status).toBe(303);
      expect(press.headers.get('location')).toContain('success=true');
    }
    await until(
      () => detail(id),
      (d) => d.qbPaymentSyncStatus === 'PARTIAL_SUCCESS',
      'PARTIAL_SUCCESS',
    );
    const { context, page } = await openPage(browser, t.url);
    try {
      await signIn(page, moderator);
      await page.goto(`${t.url}/approvals/${id}`);
      await page.getByText('Partial Success', { exact: true }).first().waitFor();
      await page.getByRole('button', { name: 'Retry QB Sync' }).click();
      await page.getByText('Success', { exact: true }).first().waitFor({ timeout: 30_000 });
    } finally {
      await context.close();
    }
    expect((await detail(id)).qbPaymentSyncStatus).toBe('SUCCESS');
    const log = (await (await fetch(`${sim.url}/__sim/requests`)).json()).requests as Array<{
      paidBillIds?: string[];
    }>;
    const paid = log.flatMap((r) => r.paidBillIds ?? []);
    for (const b of bills) expect(paid.filter((x) => x === b.Id)).toHaveLength(1);
  }, 120_000);
});
