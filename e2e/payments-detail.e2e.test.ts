// The approval detail's payment half in real Chromium against a real gateway, its workers and the
// QuickBooks simulator: two browsers hold the detail open while the
// approval is approved, its file generated, confirmed at the bank and paid; each move shows in both
// without a reload (the 'Ready for ACH' box, the NACHA card with its file, the sync card). The
// downloaded file is the one the project's validator accepts; the penny test's toast; Regenerate
// disabled at the bank, saying why; a sync that failed (no payment account) retried from
// the card until SUCCESS; the row menu's Regenerate NACHA; a phone-sized detail without sideways
// scrolling. The confirmations are sent as the confirm page would, as commands
// (the e-mail link's own path is covered by the link tests and e2e/payments.e2e.test.ts).
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalDecider, approvalStreamId } from '../services/approvals/approval-decider.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api } from '../test/support/http.js';
import { readyToPay, syncVendors } from '../test/support/payments.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  apiLogin,
  type Credentials,
  createUser,
  ensureWebBuild,
  expectToast,
  launchBrowser,
  openPage,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-e2e-payments', clientSecret: 'e2e-payments-secret-value' };
const PHONE = { width: 375, height: 812 };
let sim: QboSandbox;
let app: TestApp;
let browser: Browser;
let token = '';
let adminId = 0;
let moderator: Credentials;
let companyId = 0;
let realm: Realm;
const vendorIds = new Map<string, number>();

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  const login = await apiLogin(app.url, app.admin);
  token = login.tokens.accessToken;
  adminId = login.user.id;
  moderator = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Mona', lastName: 'Moss' });
  const c = await api(app.url, 'POST', '/api/company/companies', {
    body: { name: 'Payments Bakery' },
    token,
  });
  companyId = c.body.data.id;
  const { realmId } = await connectOverHttp({
    gatewayUrl: app.url,
    simUrl: sim.url,
    token,
    companyId,
    app: qbApp,
  });
  realm = sim.realms().find((r) => r.realmId === realmId)!;
  await readyToPay(app.url, token, companyId);
  for (const v of await syncVendors(app.url, token, companyId)) vendorIds.set(v.qbVendorId, v.id);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

/** Open bills of one vendor Billflow knows, given banking; none used twice. */
const used = new Set<string>();
async function billsWithBanking(n: number): Promise<QbBill[]> {
  const byVendor = new Map<string, QbBill[]>();
  for (const b of realm.bills)
    if (b.Balance > 0 && !used.has(b.Id) && vendorIds.has(b.VendorRef.value))
      byVendor.set(b.VendorRef.value, [...(byVendor.get(b.VendorRef.value) ?? []), b]);
  const [qbVendorId, bills] = [...byVendor].find(([, bs]) => bs.length >= n)!;
  const r = await api(app.url, 'PUT', `/api/vendors/${vendorIds.get(qbVendorId)}/banking`, {
    body: {
      routingNumber: '011000015',
      accountNumber: '987654321',
      accountType: 'checking',
      bankName: 'BofA',
    },
    token,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const out = bills.slice(0, n);
  for (const b of out) used.add(b.Id);
  return out;
}

async function createApproval(billIds: string[]): Promise<string> {
  const c = await api(app.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['payables@payments-detail.test'] },
    token,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return c.body.data.id as string;
}

const approve = async (id: string, billIds: string[]) => {
  const r = await api(app.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: billIds }, token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

/** As the confirm page's call does, by the signed-in admin. */
async function confirm(id: string, type: 'MarkBankUploaded' | 'MarkPaymentCompleted') {
  await app.started.app.commands.handle(
    approvalDecider,
    approvalStreamId(id),
    { type, byUserId: adminId, link: null, now: new Date().toISOString() },
    { commandId: `e2e-${type}-${id}`, userId: String(adminId) },
  );
}

const status = (page: Page) => page.getByTestId('detail-status');
/** Where the detail's cards sit, by test id. */
const cardBoxes = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      ['bills-card', 'nacha-card', 'qb-sync-card', 'history-card'].map((id) => {
        const r = document.querySelector(`[data-testid="${id}"]`)!.getBoundingClientRect();
        return [id, { top: r.top, left: r.left, right: r.right }];
      }),
    ),
  );
const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the approval detail along the payment path', () => {
  it('moves live in two browsers from PENDING to PAYMENT_COMPLETED, with the file, penny test and sync card', async () => {
    const bills = await billsWithBanking(2);
    const id = await createApproval(bills.map((b) => b.Id));
    const a = await openPage(browser, app.url);
    const b = await openPage(browser, app.url, { viewport: PHONE });
    try {
      await signIn(a.page, app.admin);
      await signIn(b.page, moderator);
      for (const { page } of [a, b]) {
        await page.goto(`/approvals/${id}`);
        await page.getByRole('heading', { name: `Approval #${id.slice(0, 8)}`, level: 1 }).waitFor();
        await page.getByTestId(`bill-card-${bills[0].Id}`).getByText('Ready for ACH').waitFor();
        expect(await page.getByTestId('nacha-card').count()).toBe(0);
      }

      await approve(
        id,
        bills.map((x) => x.Id),
      );
      for (const { page } of [a, b]) {
        await status(page).filter({ hasText: 'NACHA Generated' }).waitFor({ timeout: 20_000 });
        await page.getByTestId('nacha-file-name').filter({ hasText: /\S/ }).waitFor();
      }
      expect(await sideways(b.page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(a.page)).toEqual([]);

      // The file as the button saves it: text the project's validator accepts.
      const [download] = await Promise.all([
        a.page.waitForEvent('download'),
        a.page.getByRole('button', { name: 'Download NACHA File' }).click(),
      ]);
      await expectToast(a.page, 'NACHA file download started');
      const text = await readFile((await download.path())!, 'utf8');
      expect(validateAchFile(text)).toEqual([]);
      expect(download.suggestedFilename()).toBe(
        (await a.page.getByTestId('nacha-file-name').textContent())?.trim(),
      );

      await a.page.getByRole('button', { name: 'Generate Penny Test' }).click();
      await expectToast(a.page, 'Penny Test Generated');
      await b.page.getByRole('button', { name: 'Download Penny Test File' }).waitFor();

      await confirm(id, 'MarkBankUploaded');
      for (const { page } of [a, b]) await status(page).filter({ hasText: 'Bank Uploaded' }).waitFor();
      // At the bank Regenerate is still shown, disabled, saying why (the server would refuse it).
      await a.page
        .getByTestId('regenerate-blocked')
        .filter({ hasText: 'already at the bank: a second file would pay the vendors twice' })
        .waitFor();
      expect(await a.page.getByRole('button', { name: 'Regenerate NACHA File' }).isDisabled()).toBe(true);

      // Paid, but the vendors were made inactive in QuickBooks meanwhile: the sync fails and says why.
      const vendorsOfBills = [...new Set(bills.map((x) => x.VendorRef.value))];
      const setActive = (active: boolean) =>
        Promise.all(
          vendorsOfBills.map((vendorId) =>
            fetch(`${sim.url}/__sim/vendors/update`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ realmId: realm.realmId, vendorId, active }),
            }),
          ),
        );
      await setActive(false);
      await confirm(id, 'MarkPaymentCompleted');
      for (const { page } of [a, b]) {
        await status(page).filter({ hasText: 'Payment Completed' }).waitFor();
        await page.getByTestId('qb-sync-status').filter({ hasText: 'Failed' }).waitFor({ timeout: 20_000 });
      }
      await b.page
        .getByTestId('qb-sync-card')
        .filter({ hasText: /Object Not Found/ })
        .waitFor();
      // The vendors active again, Retry on the screen: both browsers see the sync succeed.
      await setActive(true);
      await a.page.getByRole('button', { name: 'Retry QB Sync' }).click();
      await expectToast(a.page, 'QB sync retry initiated');
      for (const { page } of [a, b])
        await page.getByTestId('qb-sync-status').filter({ hasText: 'Success' }).waitFor({ timeout: 20_000 });
      expect(await b.page.getByTestId('qb-sync-items').getByRole('listitem').count()).toBe(2);
      expect(await a.page.getByRole('button', { name: 'Retry QB Sync' }).count()).toBe(0);
      // On the phone, one column: the NACHA and QuickBooks cards come before the history, not after
      // its many steps. Wide, the history stays under the approval's cards, left of the payment cards.
      const phone = await cardBoxes(b.page);
      expect(phone['nacha-card'].top).toBeLessThan(phone['history-card'].top);
      expect(phone['qb-sync-card'].top).toBeLessThan(phone['history-card'].top);
      const wide = await cardBoxes(a.page);
      expect(wide['history-card'].right).toBeLessThanOrEqual(wide['nacha-card'].left);
      expect(wide['history-card'].top).toBeGreaterThan(wide['bills-card'].top);
      expect(await sideways(b.page)).toBeLessThanOrEqual(0);
      expect(a.errors).toEqual([]);
      expect(b.errors).toEqual([]);
    } finally {
      await a.context.close();
      await b.context.close();
    }
  });

  it('the row menu regenerates a generated file: a new version, the old one listed', async () => {
    const bills = await billsWithBanking(1);
    const id = await createApproval(bills.map((b) => b.Id));
    await approve(
      id,
      bills.map((x) => x.Id),
    );
    const { page, context } = await openPage(browser, app.url);
    try {
      await signIn(page, moderator);
      await page.goto(`/approvals/${id}`);
      await status(page).filter({ hasText: 'NACHA Generated' }).waitFor({ timeout: 20_000 });
      await page.goto('/approvals');
      await page.getByRole('button', { name: `Actions for approval ${id.slice(0, 8)}` }).click();
      await page.getByRole('menuitem', { name: 'Regenerate NACHA' }).click();
      await expectToast(page, 'NACHA file regenerated successfully');
      await page.goto(`/approvals/${id}`);
      await page.getByTestId('nacha-earlier').getByText(/^v1 ·/).waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: 'Download version 1' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
