// Every screen names itself in the browser's tab and history, in real Chromium against a real
// gateway: "Approvals · Billflow", "Approval 1234abcd · Billflow", "Sign in · Billflow"; a page about
// one company, user, manager or vendor by its name once read, and by its kind until then or when it
// is not found. No screen is plain "Billflow".
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  apiCall,
  apiLogin,
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  signIn,
} from './support/browser.js';

let app: TestApp;
let browser: Browser;
let companyId = 0;
let managerId = 0;
let userId = 0;
const approvalId = randomUUID();

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  const token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  const c = await apiCall<{ data: { id: number } }>(
    app.url,
    'POST',
    '/api/company/companies',
    { name: 'Tidewater Tiles' },
    token,
  );
  companyId = c.body.data.id;
  const m = await apiCall<{ data: { id: number } }>(
    app.url,
    'POST',
    '/api/manager/managers',
    { firstName: 'Tess', lastName: 'Titlow', email: 'tess.titlow@example.com' },
    token,
  );
  managerId = m.body.data.id;
  userId = (await createUser(app.url, app.admin, 'USER', { firstName: 'Uri', lastName: 'Usage' })).id;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('document titles', () => {
  it('name every screen: the sign-in, the lists, the forms and each record by its name', async () => {
    const { page, errors, context } = await openPage(browser, app.url);
    await page.goto('/login');
    await expect.poll(() => page.title()).toBe('Sign in · Billflow');
    await signIn(page, app.admin);
    const short = approvalId.slice(0, 8);
    const screens: Array<[string, string]> = [
      ['/dashboard', 'Dashboard'],
      ['/companies', 'Companies'],
      ['/companies/new', 'New company'],
      [`/companies/${companyId}`, 'Tidewater Tiles'],
      [`/companies/${companyId}/edit`, 'Edit Tidewater Tiles'],
      [`/companies/${companyId}/nacha`, 'NACHA configuration of Tidewater Tiles'],
      ['/users', 'Users'],
      ['/users/new', 'New user'],
      [`/users/${userId}`, 'Uri Usage'],
      [`/users/${userId}/edit`, 'Edit Uri Usage'],
      ['/managers', 'Managers'],
      ['/managers/new', 'New manager'],
      [`/managers/${managerId}`, 'Tess Titlow'],
      [`/managers/${managerId}/edit`, 'Edit Tess Titlow'],
      ['/vendors', 'Vendors'],
      ['/vendors/987654', 'Vendor'],
      ['/vendors/987654/edit-banking', 'Edit banking'],
      ['/operations', 'Operations'],
      ['/bank-files', 'Bank files'],
      ['/approvals', 'Approvals'],
      [`/bills?companyId=${companyId}`, 'New approval from bills'],
      [`/approvals/${approvalId}`, `Approval ${short}`],
      [`/approvals/${approvalId}/confirm?token=x.y.z&action=payment-completed`, `Confirm approval ${short}`],
      [
        `/approvals/direct-action-result?action=payment-completed&approvalId=${approvalId}&success=true`,
        'Action result',
      ],
    ];
    for (const [path, screen] of screens) {
      await page.goto(path);
      await expect.poll(() => page.title(), { message: path }).toBe(`${screen} · Billflow`);
    }
    // Moving within the app (no reload): the next screen's name replaces the last one's.
    await page.goto('/companies');
    await page.getByRole('link', { name: 'Tidewater Tiles' }).first().click();
    await expect.poll(() => page.title()).toBe('Tidewater Tiles · Billflow');
    await page.getByRole('link', { name: 'Vendors' }).first().click();
    await expect.poll(() => page.title()).toBe('Vendors · Billflow');
    // The public result page, outside the shell.
    await page.goto(`/direct-action-result?action=bank-upload&approvalId=${approvalId}&success=true`);
    await expect.poll(() => page.title()).toBe('Action result · Billflow');
    expect(errors).toEqual([]);
    await context.close();
  });
});
