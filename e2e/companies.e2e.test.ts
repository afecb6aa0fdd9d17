// The Companies screens in real Chromium against a real gateway and the QuickBooks simulator: list with
// filters, sorting, row menu and bulk actions; create and edit with the form's rules; the detail page with
// inline assignments, activate and deactivate; the NACHA form's rules on screen and on the server; and the
// whole OAuth flow — popup, consent, callback, postMessage — after which the connection stays healthy across
// token expiry and the payment account is picked from QuickBooks' bank accounts.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  apiCall,
  apiLogin,
  createUser,
  DESKTOP,
  ensureWebBuild,
  expectToast,
  launchBrowser,
  openPage,
  pathOf,
  signIn,
} from './support/browser.js';

let app: TestApp;
let sim: QboSandbox;
let browser: Browser;
let token = '';
let managerId = 0;
let processor: { id: number; email: string };
// Access tokens of this app last 20 s: the refresh job renews them while the test watches.
const qbApp = { clientId: 'billflow-e2e', clientSecret: 'e2e-client-secret-value', accessTtlSeconds: 20 };

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp] });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  const manager = await apiCall<{ data: { id: number } }>(
    app.url,
    'POST',
    '/api/manager/managers',
    { firstName: 'Dana', lastName: 'Whitfield', email: 'dana@example.com' },
    token,
  );
  managerId = manager.body.data.id;
  processor = await createUser(app.url, app.admin, 'USER', { firstName: 'Paula', lastName: 'Price' });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

async function createCompany(body: Record<string, unknown>): Promise<number> {
  const res = await apiCall<{ data: { id: number } }>(app.url, 'POST', '/api/company/companies', body, token);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function rowNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid^="company-row-"] td:nth-child(2)').allTextContents();
}

describe('companies screens', () => {
  it('creates with the form’s rules, changes assignments inline, deactivates, edits', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/companies');
    await page.getByRole('heading', { name: 'Companies', level: 1 }).waitFor();
    await page.getByText('No companies found').waitFor();
    await page.getByText('Get started by creating your first company').waitFor();
    await page.getByRole('link', { name: 'Add Company' }).click();
    await page.getByRole('heading', { name: 'Create Company', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Create Company' }).click();
    await page.getByText('Company name is required', { exact: true }).waitFor();
    await page.getByLabel('Company Name *').fill('Acme Holdings');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Website').fill('acme');
    await page.getByRole('button', { name: 'Create Company' }).click();
    await page.getByText('Invalid email address').waitFor();
    await page.getByText('Invalid website URL').waitFor();
    await page.getByLabel('Email').fill('ap@acme.example');
    await page.getByLabel('Website').fill('https://acme.example');
    await choose(page, 'Industry', 'Retail');
    await choose(page, 'Manager', 'Dana Whitfield (dana@example.com)');
    await choose(page, 'Processor', `Paula Price (${processor.email})`);
    await page.getByRole('button', { name: 'Create Company' }).click();
    await expectToast(page, 'Company created successfully');
    await page.getByRole('heading', { name: 'Acme Holdings', level: 1 }).waitFor();
    const id = Number(pathOf(page).split('/').pop());
    await page.getByTestId('connection-badge').getByText('Not Connected').waitFor();
    // Its Recent Activity lists its own lines: its creation already.
    await page
      .getByRole('group', { name: 'Recent Activity' })
      .getByText(/created company Acme Holdings$/)
      .waitFor();
    expect(await page.getByRole('combobox', { name: 'Manager' }).textContent()).toContain('Dana Whitfield');

    // Inline: the approver becomes Paula; the server has it.
    await choose(page, 'Approver', `Paula Price (${processor.email})`);
    await expectToast(page, 'Approver updated');
    const stored = await apiCall<{ data: { approverId: number; managerId: number } }>(
      app.url,
      'GET',
      `/api/company/companies/${id}`,
      undefined,
      token,
    );
    expect(stored.body.data).toMatchObject({ approverId: processor.id, managerId });

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expectToast(page, 'Company deactivated successfully');
    await page.getByRole('button', { name: 'Activate' }).waitFor();
    await page.getByText('INACTIVE').first().waitFor();

    await page.getByRole('link', { name: 'Edit Company' }).click();
    await page.getByRole('heading', { name: 'Edit Company', level: 1 }).waitFor();
    expect(await page.getByLabel('Company Name *').inputValue()).toBe('Acme Holdings');
    await page.getByLabel('Phone').fill('+1 555 0100');
    await page.getByRole('button', { name: 'Update Company' }).click();
    await expectToast(page, 'Company updated successfully');
    await page.getByRole('heading', { name: 'Acme Holdings', level: 1 }).waitFor();
    await page.getByText('+1 555 0100').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists with N/A, sorts the page asc/desc/none, filters, deletes after confirming, bulk-activates', async () => {
    await createCompany({ name: 'Bolt Supply', industry: 'Manufacturing' });
    await createCompany({ name: 'Cobalt Partners', email: 'hi@cobalt.example' });
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/companies');
    await page.getByText('Showing 1 to 3 of 3 companies').waitFor();
    // Newest first from the server.
    expect(await rowNames(page)).toEqual(['Cobalt Partners', 'Bolt Supply', 'Acme Holdings']);
    const cobalt = page.locator('[data-testid^="company-row-"]', { hasText: 'Cobalt Partners' });
    expect(await cobalt.textContent()).toContain('N/A'); // no industry
    await page.getByRole('button', { name: 'Name' }).click();
    expect(await rowNames(page)).toEqual(['Acme Holdings', 'Bolt Supply', 'Cobalt Partners']);
    await page.getByRole('button', { name: 'Name' }).click();
    expect(await rowNames(page)).toEqual(['Cobalt Partners', 'Bolt Supply', 'Acme Holdings']);
    await page.getByRole('button', { name: 'Name' }).click();
    expect(await rowNames(page)).toEqual(['Cobalt Partners', 'Bolt Supply', 'Acme Holdings']);

    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Search').fill('bolt');
    // Typing settles for 300 ms before the search goes out: wait for the rows, not the footer.
    await expect.poll(() => rowNames(page)).toEqual(['Bolt Supply']);
    await page.getByLabel('Search').fill('');
    await choose(page, 'Status', 'Inactive');
    await expect.poll(() => rowNames(page)).toEqual(['Acme Holdings']);
    await page.getByText('Showing 1 to 1 of 1 company').waitFor();
    await choose(page, 'Status', 'All statuses');
    await choose(page, 'QB Status', 'Connected');
    await page.getByText('No companies found').waitFor();
    await choose(page, 'QB Status', 'All connections');
    await page.getByText('Showing 1 to 3 of 3 companies').waitFor();

    // Delete asks first, in the spec's words.
    await page.getByRole('button', { name: 'Actions for Cobalt Partners' }).click();
    expect(await page.getByRole('menuitem', { name: 'Refresh QB Token' }).count()).toBe(0);
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Delete Company' }).waitFor();
    await dialog
      .getByText(
        'Are you sure you want to delete this company? This action cannot be undone and will remove all associated data.',
      )
      .waitFor();
    await dialog.getByRole('button', { name: 'Delete Company' }).click();
    await expectToast(page, 'Company deleted successfully');
    await page.getByText('Showing 1 to 2 of 2 companies').waitFor();

    // Bulk: deactivate both, then activate both.
    await page.getByRole('checkbox', { name: 'Select all companies on this page' }).check();
    await page.getByRole('button', { name: 'Deactivate Selected', exact: true }).click();
    await page.getByText('Deactivate finished: 2 succeeded, 0 failed').waitFor();
    await page.getByRole('checkbox', { name: 'Select all companies on this page' }).check();
    await page.getByRole('button', { name: 'Activate Selected', exact: true }).click();
    await page.getByText('Activate finished: 2 succeeded, 0 failed').waitFor();
    await page
      .locator('[data-testid^="company-row-"]', { hasText: 'INACTIVE' })
      .first()
      .waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('checks the NACHA form on screen and on the server, and keeps the account number masked', async () => {
    const id = await createCompany({ name: 'Delta Freight Services Incorporated' });
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/companies/${id}/nacha`);
    await page.getByRole('heading', { name: 'NACHA Configuration', level: 1 }).waitFor();
    // Defaults.
    expect(await page.getByLabel('Company Entry Description *').inputValue()).toBe('BILL PAY');
    expect(await page.getByLabel('Immediate Origin Name *').inputValue()).toBe('DELTA FREIGHT SERVICES ');
    expect(await page.getByLabel('Originator Status Code *').inputValue()).toBe('1');

    await page.getByRole('button', { name: 'Save NACHA Configuration' }).click();
    await page.getByText('Routing number is required').waitFor();
    await page.getByText('Account number is required').waitFor();
    await page.getByText('Tax ID must be in format XX-XXXXXXX (9 digits total)').waitFor();
    await page.getByText('Immediate destination name is required').waitFor();

    await page.getByLabel('Routing Number *').fill('021000022'); // check digit wrong
    expect(await page.getByLabel('Routing Number *').inputValue()).toBe('021-000-022');
    await page.getByLabel('Account Number *').fill('000123456789');
    await page.getByLabel('Bank Name *').fill('JPMorgan Chase');
    await page.getByLabel('Tax ID (EIN) *').fill('123456789');
    expect(await page.getByLabel('Tax ID (EIN) *').inputValue()).toBe('12-3456789');
    await page.getByLabel('Immediate Destination Name *').fill('jpmorgan chase');
    expect(await page.getByLabel('Immediate Destination Name *').inputValue()).toBe('JPMORGAN CHASE');
    await page.getByRole('button', { name: 'Save NACHA Configuration' }).click();
    await expectToast(page, 'Routing number is not valid (check digit)');
    expect(pathOf(page)).toBe(`/companies/${id}/nacha`);

    await page.getByLabel('Routing Number *').fill('021000021');
    await page.getByRole('button', { name: 'Save NACHA Configuration' }).click();
    await expectToast(page, 'NACHA configuration updated successfully');
    await page.waitForURL(`**/companies/${id}`);

    await page.goto(`/companies/${id}/nacha`);
    expect(await page.getByLabel('Account Number *').inputValue()).toMatch(/^\*+6789$/);
    expect(await page.getByLabel('Routing Number *').inputValue()).toBe('021-000-021');
    // Saving again with the masked value keeps the stored number.
    await page.getByLabel('Bank Name *').fill('Chase');
    await page.getByRole('button', { name: 'Save NACHA Configuration' }).click();
    await expectToast(page, 'NACHA configuration updated successfully');
    const pool = new (await import('pg')).default.Pool({ connectionString: app.env.DATABASE_URL, max: 1 });
    try {
      const dump = JSON.stringify((await pool.query('SELECT * FROM companies WHERE id = $1', [id])).rows);
      expect(dump).not.toContain('000123456789');
      expect(dump).toContain('6789');
    } finally {
      await pool.end();
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('connects through the OAuth popup, stays connected across token expiry, and picks the payment account', async () => {
    const id = await createCompany({ name: 'Sunrise Client Co' });
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/companies/${id}`);
    await page.getByRole('button', { name: 'Connect QuickBooks' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Connect QuickBooks' }).waitFor();
    expect(await dialog.getByLabel('OAuth Callback URL').inputValue()).toBe(
      `${app.url}/api/company/companies/qb-oauth/callback`,
    );
    expect(
      await dialog.getByRole('switch', { name: 'Sandbox Environment' }).getAttribute('aria-checked'),
    ).toBe('true');
    await dialog.getByRole('button', { name: 'QuickBooks App Setup Instructions' }).click();
    await dialog.getByText('accounting, openid, profile, email, phone, address').waitFor();

    // The dialog's own checks.
    await dialog.getByRole('button', { name: 'Start OAuth Flow' }).click();
    await expectToast(page, 'Missing Credentials');
    await dialog.getByLabel('Client ID').fill(qbApp.clientId);
    await dialog.getByRole('button', { name: 'Save Credentials' }).click();
    await expectToast(page, 'Missing Client Secret');
    await dialog.getByLabel('Client Secret').fill(qbApp.clientSecret);

    // A blocked popup says so.
    await page.evaluate(() => {
      (window as unknown as { realOpen: typeof window.open }).realOpen = window.open;
      window.open = () => null;
    });
    await dialog.getByRole('button', { name: 'Start OAuth Flow' }).click();
    await dialog
      .getByRole('alert')
      .getByText('Failed to open OAuth popup. Please check your popup blocker settings.')
      .waitFor();
    // The real window.open again, recording the features it is asked for.
    await page.evaluate(() => {
      const w = window as unknown as { realOpen: typeof window.open; popupFeatures: string };
      window.open = (url, target, features) => {
        w.popupFeatures = String(features);
        return w.realOpen.call(window, url, target, features);
      };
    });

    // The real flow: popup 600x700 on the simulator's consent page, choose the company.
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      dialog.getByRole('button', { name: 'Start OAuth Flow' }).click(),
    ]);
    await popup.getByRole('heading', { name: 'QuickBooks sandbox' }).waitFor();
    const features = await page.evaluate(
      () => (window as unknown as { popupFeatures: string }).popupFeatures,
    );
    expect(features).toMatch(/^width=600,height=700,/);
    await popup.getByRole('button', { name: 'Connect Sunrise Bakery LLC' }).click();
    await popup.waitForEvent('close');
    await expectToast(page, 'QuickBooks connected successfully. The integration is now active.');
    await dialog.waitFor({ state: 'detached' });
    const badge = page.getByTestId('connection-badge');
    await badge.getByText('Connected', { exact: true }).waitFor();
    await page
      .getByTestId('token-expires')
      .getByText(/seconds?$/)
      .waitFor();
    await page.getByRole('button', { name: 'Refresh Token' }).waitFor();

    // The refresh job renews the 20-second token before it expires; the card never shows expired.
    const first = await companyField(id, 'qbLastRefresh');
    const deadline = Date.now() + 30_000;
    let refreshed = first;
    while (refreshed === first && Date.now() < deadline) {
      expect(await page.getByTestId('connection-card').getAttribute('data-state')).not.toBe('expired');
      await page.waitForTimeout(500);
      refreshed = await companyField(id, 'qbLastRefresh');
    }
    expect(refreshed).not.toBe(first);
    await page.waitForTimeout(6_000); // past the first token's expiry
    await badge.getByText('Connected', { exact: true }).waitFor();
    expect(await page.getByTestId('connection-issue').count()).toBe(0);

    // The payment account: QuickBooks' bank accounts, highest balance first, with their dots.
    const accounts = page.getByTestId('payment-account-card').getByRole('radio');
    await accounts.first().waitFor();
    const labels = await page.locator('[data-testid^="bank-account-"]').allTextContents();
    expect(labels.length).toBeGreaterThan(1);
    const balances = labels.map((l) => Number(l.match(/\(\$([\d,.]+)\)/)?.[1].replace(/,/g, '')));
    expect([...balances].sort((a, b) => b - a)).toEqual(balances);
    const lowest = page.locator('[data-testid^="bank-account-"]').last();
    await lowest.getByRole('radio').click();
    await expect.poll(() => lowest.getByRole('radio').isChecked()).toBe(true);
    await expectToast(page, 'Payment account updated successfully');
    if (balances[balances.length - 1] < 1000) await lowest.locator('[data-dot="orange"]').waitFor();
    else await lowest.locator('[data-dot="green"]').waitFor();
    const highest = page.locator('[data-testid^="bank-account-"]').first();
    await highest.getByRole('radio').click();
    await expect.poll(() => highest.getByRole('radio').isChecked()).toBe(true);
    await expectToast(page, 'Payment account updated successfully');
    await highest.locator('[data-dot="green"]').waitFor();
    expect(await companyField(id, 'qbPaymentAccountReference')).toBe(
      (await highest.getAttribute('data-testid'))?.replace('bank-account-', ''),
    );

    // Consent refused: the popup's error reaches the dialog.
    await page.getByRole('button', { name: 'Reconnect QuickBooks' }).click();
    await dialog.getByLabel('Client Secret').fill(qbApp.clientSecret);
    expect(await dialog.getByLabel('Client ID').inputValue()).toBe(qbApp.clientId);
    const [again] = await Promise.all([
      page.waitForEvent('popup'),
      dialog.getByRole('button', { name: 'Start OAuth Flow' }).click(),
    ]);
    await again.getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('alert').waitFor();
    await expectToast(page, 'OAuth Failed');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('keeps the assignment selects apart at 1280×800 when the names are long', async () => {
    const long = await createUser(app.url, app.admin, 'USER', {
      firstName: 'Maximiliana Alexandrovna',
      lastName: 'Featherstonehaugh-Cholmondeley',
      email: `maximiliana.featherstonehaugh-cholmondeley.${Date.now()}@accounts-payable.example.com`,
    });
    const manager = await apiCall<{ data: { id: number } }>(
      app.url,
      'POST',
      '/api/manager/managers',
      {
        firstName: 'Bartholomew Montgomery',
        lastName: 'Worthington-Smythe',
        email: 'bartholomew.worthington-smythe@regional-management.example.com',
      },
      token,
    );
    const id = await createCompany({
      name: 'Long Names Trading Company',
      managerId: manager.body.data.id,
      processorId: long.id,
      approverId: long.id,
      accountantId: long.id,
    });
    const { page, errors } = await openPage(browser, app.url, { viewport: DESKTOP });
    await signIn(page, app.admin);
    await page.goto(`/companies/${id}`);
    await page.getByRole('heading', { name: 'Long Names Trading Company', level: 1 }).waitFor();
    const keys = ['managerId', 'processorId', 'approverId', 'accountantId'];
    const triggers = keys.map((k) => page.getByTestId(`assign-${k}-trigger`));
    await expect.poll(() => triggers[1].textContent()).toContain('Featherstonehaugh-Cholmondeley');
    // The whole name is in the title, the field shows what fits.
    expect(await triggers[1].getAttribute('title')).toBe(
      `Maximiliana Alexandrovna Featherstonehaugh-Cholmondeley (${long.email})`,
    );
    const boxes = await Promise.all(triggers.map((t) => t.boundingBox()));
    const card = await page.getByTestId('company-assignments').boundingBox();
    const overlap = (a: NonNullable<(typeof boxes)[0]>, b: NonNullable<(typeof boxes)[0]>) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    for (const [i, a] of boxes.entries()) {
      expect(a).not.toBeNull();
      // Inside the card, not spilling over its edge.
      expect(a!.x).toBeGreaterThanOrEqual(card!.x);
      expect(a!.x + a!.width).toBeLessThanOrEqual(card!.x + card!.width + 0.5);
      for (const b of boxes.slice(i + 1)) expect(overlap(a!, b!)).toBe(false);
    }
    // Two side by side at this width, and the value is cut rather than pushing the field wider.
    expect(Math.abs(boxes[0]!.y - boxes[1]!.y)).toBeLessThan(1);
    const cut = await triggers[1].evaluate((el) => {
      const value = el.querySelector('span') as HTMLElement;
      return value.scrollWidth > value.clientWidth;
    });
    expect(cut).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

async function companyField(id: number, field: string): Promise<unknown> {
  const res = await apiCall<{ data: Record<string, unknown> }>(
    app.url,
    'GET',
    `/api/company/companies/${id}`,
    undefined,
    token,
  );
  return res.body.data[field];
}
