// A payment held shows where the clerk works, in real Chromium against a real gateway, its workers
// and the QuickBooks simulator. The problem is planted through the product: an approval of a company
// without NACHA settings is approved, so its file waits on a fix. The dashboard counts it under
// Payments needing attention and opens the list filtered to it; its row says what holds it under its
// status (on a phone too, without scrolling sideways); its detail says it beside the status and in a
// banner with Regenerate; live, a second approval held the same way moves the dashboard's figure.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api } from '../test/support/http.js';
import { connectedCompany, nachaOutcome, syncVendors } from '../test/support/payments.js';
import type { QbBill } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  apiLogin,
  ensureWebBuild,
  launchBrowser,
  MOBILE,
  openPage,
  pathOf,
  seriousAxeViolations,
  signIn,
  tableOverflow,
} from './support/browser.js';

const A = '/api/bill-approval/approvals';
const qbApp = { clientId: 'billflow-e2e-problems', clientSecret: 'e2e-problems-secret-value' };
let sim: QboSandbox;
let app: TestApp;
let browser: Browser;
let token = '';
let companyId = 0;
let open: QbBill[] = [];

/** An approval of the next open bill, approved: its file is asked for at once and waits on a fix. */
async function heldApproval(): Promise<string> {
  const bill = open.shift()!;
  const c = await api(app.url, 'POST', A, {
    body: { companyId, billIds: [bill.Id], recipients: ['payables@problems.test'] },
    token,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const id = c.body.data.id as string;
  const a = await api(app.url, 'PUT', `${A}/${id}/approve`, { body: { approvedBills: [bill.Id] }, token });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  const d = await nachaOutcome(app.url, token, id);
  expect(d.paymentProblem).toMatchObject({ kind: 'nacha', retry: 'regenerate' });
  return id;
}

const statValue = (page: Page) =>
  page.getByRole('group', { name: 'Payments needing attention' }).getByTestId('stat-payments-value');

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  // Connected, its vendors synced, but no NACHA settings: a file cannot be made.
  const c = await connectedCompany({ url: app.url, sim, token, app: qbApp, name: 'Unset Upholstery' });
  companyId = c.companyId;
  const policy = await api(app.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
    token,
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  const vendors = new Set((await syncVendors(app.url, token, companyId)).map((v) => v.qbVendorId));
  open = c.realm.bills.filter((b) => b.Balance > 0 && vendors.has(b.VendorRef.value));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

describe('a payment held by its file', () => {
  it('is counted on the dashboard, which opens the list filtered to it; the row and the detail say what holds it', async () => {
    const id = await heldApproval();
    const short = id.slice(0, 8);
    const { page, context, errors } = await openPage(browser, app.url);
    try {
      await signIn(page, app.admin);
      await page.waitForURL('**/dashboard');
      await statValue(page).filter({ hasText: /^1$/ }).waitFor();

      // Live: a second approval held the same way moves the figure without a reload.
      const second = await heldApproval();
      await statValue(page).filter({ hasText: /^2$/ }).waitFor({ timeout: 15_000 });
      expect(await seriousAxeViolations(page)).toEqual([]);

      await statValue(page).click();
      await page.waitForURL((u) => u.pathname === '/approvals' && u.searchParams.get('problem') === 'any');
      expect(pathOf(page)).toBe('/approvals');
      expect(await page.getByRole('combobox', { name: 'Payment' }).textContent()).toBe('Needs attention');
      const rows = page.locator('[data-testid^="approval-row-"]');
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      const row = page.getByTestId(`approval-row-${id}`);
      const marker = row.getByTestId('status').getByTestId('payment-problem');
      await marker.waitFor();
      expect(await marker.textContent()).toMatch(
        /^NACHA file needs a fix: The NACHA file could not be made: /,
      );
      expect(await page.getByTestId(`approval-row-${second}`).getByTestId('payment-problem').count()).toBe(1);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // On a phone the row still says it, and nothing scrolls sideways.
      await page.setViewportSize(MOBILE);
      expect(await marker.isVisible()).toBe(true);
      await expect.poll(() => tableOverflow(page)).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1280, height: 800 });

      await row.getByRole('link', { name: short }).click();
      await page.getByRole('heading', { name: `Approval #${short}`, level: 1 }).waitFor();
      await page.getByTestId('payment-problem-badge').filter({ hasText: 'Needs attention' }).waitFor();
      const banner = page.getByTestId('payment-problem-banner');
      await banner.getByText('Payment needs attention: NACHA file needs a fix').waitFor();
      await banner.getByRole('button', { name: 'Regenerate NACHA File' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
