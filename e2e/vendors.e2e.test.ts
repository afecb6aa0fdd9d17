// The Vendors screens in real Chromium against a real gateway and the QuickBooks simulator: an admin syncs a
// company's vendors with the live progress bar, filters the list, completes banking by hand (with the form's
// messages) and by CSV (upload percentage, outcome, row errors), exports, clears; a moderator sees the
// numbers unmasked and every unmask is on the vendor's history; an unknown vendor says so. The company's
// control on bank detail changes is on (the default): a new account is held, said to be held, and goes live
// when a second ADMIN approves it.
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
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
  seriousAxeViolations,
  signIn,
  tableOverflow,
} from './support/browser.js';

let app: TestApp;
let sim: QboSandbox;
let browser: Browser;
let token = '';
/** A second ADMIN: approves the changes the first one makes (nobody approves their own). */
let checkerToken = '';
let companyId = 0;
let realmVendors: Array<{ Id: string; DisplayName: string; PrimaryEmailAddr?: unknown; Active: boolean }> =
  [];
const qbApp = { clientId: 'billflow-e2e-vendors', clientSecret: 'e2e-vendors-secret-value' };

/** Creates a company and connects it through the simulator's consent page, as the OAuth popup would. */
async function connectCompany(name: string): Promise<{ id: number; realmId: string }> {
  const c = await apiCall<{ data: { id: number } }>(
    app.url,
    'POST',
    '/api/company/companies',
    { name },
    token,
  );
  const id = c.body.data.id;
  const { realmId } = await connectOverHttp({
    gatewayUrl: app.url,
    simUrl: sim.url,
    token,
    companyId: id,
    app: qbApp,
  });
  return { id, realmId };
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function vendorByName(name: string) {
  const r = await apiCall<{ data: Array<{ id: number; name: string }> }>(
    app.url,
    'GET',
    `/api/vendors?search=${encodeURIComponent(name)}&companyId=${companyId}`,
    undefined,
    token,
  );
  return r.body.data.find((v) => v.name === name)!;
}

/** The vendor's held change, approved by the second ADMIN over REST: it goes live. */
async function approveHeldChange(vendorId: number) {
  const changes = await apiCall<{ data: Array<{ changeId: string; status: string }> }>(
    app.url,
    'GET',
    `/api/vendors/${vendorId}/banking-changes`,
    undefined,
    checkerToken,
  );
  const held = changes.body.data.find((c) => c.status === 'pending');
  if (!held) throw new Error(`vendor ${vendorId} has no pending change: ${JSON.stringify(changes.body)}`);
  const r = await apiCall(
    app.url,
    'POST',
    `/api/vendors/${vendorId}/banking-changes/${held.changeId}/approve`,
    { reason: 'Checked with the vendor on the number on file' },
    checkerToken,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp] });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  checkerToken = (await apiLogin(app.url, await createUser(app.url, app.admin, 'ADMIN'))).tokens.accessToken;
  const c = await connectCompany('Harbor Freight Supply');
  companyId = c.id;
  realmVendors = sim.realms().find((r) => r.realmId === c.realmId)!.vendors as typeof realmVendors;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

describe('vendors screens', () => {
  it('syncs with a live progress bar, filters, and completes banking by hand', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/vendors');
    await page.getByRole('heading', { name: 'Vendors', level: 1 }).waitFor();
    await page.getByText('No vendors found').waitFor();

    await page.getByRole('button', { name: 'Sync from QuickBooks' }).click();
    const dialog = page.getByRole('dialog');
    await choose(page, 'Company to sync', 'Harbor Freight Supply');
    await dialog.getByRole('button', { name: 'Start Sync' }).click();
    const bar = dialog.getByRole('progressbar', { name: 'Sync progress' });
    await bar.waitFor();
    await dialog.getByText(`Done: ${realmVendors.length} synced, 0 failed`).waitFor();
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    await expectToast(page, 'Vendors synced');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The list: 20 a page, all missing banking so far; the footer counts them all.
    await expect.poll(() => page.locator('[data-testid^="vendor-row-"]').count()).toBe(20);
    await page.getByText(new RegExp(`of ${realmVendors.length} vendors`)).waitFor();
    expect(await page.getByText('Ready for ACH').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Every column in view on a 1280-pixel screen, the sidebar open.
    expect(await tableOverflow(page)).toBeLessThanOrEqual(0);

    // Search (debounced) finds one vendor by name.
    const target = realmVendors.find((v) => v.Active && v.PrimaryEmailAddr)!;
    await page.getByLabel('Search').fill(target.DisplayName);
    await expect.poll(() => page.locator('[data-testid^="vendor-row-"]').count()).toBe(1);
    await page.getByRole('link', { name: `Edit banking of ${target.DisplayName}` }).click();
    await page.getByRole('heading', { name: 'Edit Banking Information', level: 1 }).waitFor();

    // The form's messages, then a real routing number.
    const save = page.getByRole('button', { name: 'Save Banking Information' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Routing Number').fill('12345');
    await page.getByLabel('Account Number').fill('123456789012345678');
    await save.click();
    await page.getByText('Routing number must be 9 digits').waitFor();
    await page.getByText('Account number must be 17 characters or less').waitFor();
    await page.getByLabel('Routing Number').fill('0210000a1');
    await save.click();
    await page.getByText('Routing number must contain only digits').waitFor();
    // The ABA check digit is the server's rule: its message comes back on the field.
    await page.getByLabel('Routing Number').fill('021000022');
    await page.getByLabel('Account Number').fill('000987654321');
    await save.click();
    await page
      .locator('#routingNumber-error', { hasText: 'Routing number is not valid (check digit)' })
      .waitFor();
    await page.getByLabel('Routing Number').fill('021000021');
    await page.getByLabel('Account Number').fill('000987654321');
    await choose(page, 'Account Type', 'Savings');
    await page.getByLabel('Bank Name (optional)').fill('JPMorgan Chase');
    await save.click();
    // A first account is a change like any other: held for a second look, and said so.
    await expectToast(
      page,
      'Bank details change saved: it goes live once another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits',
    );
    await page.getByRole('heading', { name: 'Vendor Details', level: 1 }).waitFor();
    const held = page.getByTestId('pending-banking-change');
    await held.getByRole('heading', { name: 'Bank details change pending approval' }).waitFor();
    expect(await held.getByTestId('pending-account').textContent()).toMatch(/^None → \*+4321$/);
    expect(await held.getByTestId('pending-routing').textContent()).toBe('None → *****0021');
    await held.getByText(/^An ADMIN or MODERATOR other than .* must approve or reject it/).waitFor();
    // Its maker may reject it but is not offered Approve.
    await held.getByText(/You made this change/).waitFor();
    expect(await held.getByRole('button', { name: 'Approve Change' }).count()).toBe(0);
    await held.getByRole('button', { name: 'Reject Change' }).waitFor();
    await page.getByText('Missing Banking Info').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The second ADMIN approves it: the open page moves by itself.
    await approveHeldChange((await vendorByName(target.DisplayName)).id);
    await held.waitFor({ state: 'detached' });

    // Masked on the detail page, with the banner for staff who may unmask.
    await page.getByText('Ready for ACH').waitFor();
    expect(await page.getByTestId('routing-number').textContent()).toBe('*****0021');
    expect(await page.getByTestId('account-number').textContent()).toMatch(/^\*+4321$/);
    await page.getByText(/Banking numbers are masked/).waitFor();
    await page
      .getByText(target.PrimaryEmailAddr ? (target.PrimaryEmailAddr as { Address: string }).Address : '')
      .waitFor();

    // Filter by banking: the one vendor with banking.
    await page.goto('/vendors');
    await choose(page, 'Banking', 'Has banking');
    await expect.poll(() => page.locator('[data-testid^="vendor-row-"]').count()).toBe(1);
    await page.getByText('Ready for ACH').waitFor();
    await choose(page, 'Banking', 'Missing banking');
    await choose(page, 'Status', 'Inactive');
    const inactive = realmVendors.filter((v) => !v.Active).length;
    await expect
      .poll(() => page.locator('[data-testid^="vendor-row-"]').count())
      .toBe(Math.min(20, inactive));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('imports bank details from CSV with the upload percentage, the outcome and the row errors; exports', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    const list = await apiCall<{ data: Array<{ id: number; name: string; hasBankingInfo: boolean }> }>(
      app.url,
      'GET',
      `/api/vendors?companyId=${companyId}&hasBanking=false&limit=5`,
      undefined,
      token,
    );
    const [a, b, c] = list.body.data;
    const csv = [
      'ID,Routing Number,Account Number,Account Type,Bank Name',
      `${a.id},011000015,11112222,checking,Bank of Boston`,
      `${b.id},021000021,33334444,savings,Chase`,
      `${c.id},123456789,55556666,checking,Bad Check Digit Bank`,
      '999999999,021000021,77778888,checking,Nobody',
    ].join('\n');

    await page.goto('/vendors');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog');
    // A file that is not .csv is refused before any upload.
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'vendors.xlsx', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await dialog.getByText('Only .csv files can be imported').waitFor();
    expect(await dialog.getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'vendors.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog.getByRole('status').filter({ hasText: '2 vendors updated, 2 failed' }).waitFor();
    // Saved, not live: both wait for a second look.
    await dialog
      .getByTestId('import-held-note')
      .filter({ hasText: /^2 changes of bank details wait for approval/ })
      .waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByText(/^Row 4: .*routing/i).waitFor();
    await dialog.getByText(/^Row 5: /).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await approveHeldChange(a.id);
    await approveHeldChange(b.id);
    await expect.poll(async () => page.getByText('Ready for ACH').count()).toBeGreaterThanOrEqual(2);

    // All good rows: the success message.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog.getByLabel('CSV file').setInputFiles({
      name: 'fix.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        `ID,Routing Number,Account Number,Account Type,Bank Name\n${c.id},011000015,55556666,checking,Fixed Bank\n`,
      ),
    });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    // One vendor in the singular.
    await dialog.getByRole('status').filter({ hasText: '1 vendor updated successfully' }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await approveHeldChange(c.id);

    // An empty account number: one clear message, not every rule it breaks.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog.getByLabel('CSV file').setInputFiles({
      name: 'empty.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        `ID,Routing Number,Account Number,Account Type,Bank Name\n${c.id},011000015,,checking,Fixed Bank\n`,
      ),
    });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog.getByRole('status').filter({ hasText: 'The vendor failed to import' }).waitFor();
    expect(await dialog.getByTestId('import-errors').getByRole('listitem').allTextContents()).toEqual([
      'Row 2: Account number is required',
    ]);
    await dialog.getByRole('button', { name: 'Done' }).click();

    // Export: a download named vendors-export.csv, masked.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('vendors-export.csv');
    const text = await readFile((await download.path())!, 'utf8');
    expect(text.split('\n')[0]).toContain('ID,Name,Company');
    expect(text).toContain(a.name);
    expect(text).not.toContain('11112222');
    await expectToast(page, 'Download started');

    // The export imported back: its numbers are masked, and the import says so and how to get
    // full ones, on every row that carries them.
    const banked = text.split('\n').filter((line) => /\*{4}/.test(line)).length;
    expect(banked).toBeGreaterThanOrEqual(3);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'vendors-export.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog
      .getByRole('status')
      .filter({ hasText: `0 vendors updated, ${banked} failed` })
      .waitFor();
    const note = dialog.getByTestId('import-masked-note');
    expect(await note.textContent()).toMatch(
      new RegExp(
        `^${banked} rows have masked bank numbers\\. A CSV export masks the routing and account numbers`,
      ),
    );
    const rows = await dialog.getByTestId('import-errors').getByRole('listitem').allTextContents();
    expect(rows).toHaveLength(Math.min(banked, 10));
    for (const row of rows)
      expect(row).toMatch(/^Row \d+: The routing or account number is masked, as an export writes it/);
    await dialog.getByRole('button', { name: 'Done' }).click();

    // An ADMIN's export with full numbers, asked first and on record: it imports back as it is.
    await page.getByRole('button', { name: 'Export with full numbers' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(/recorded in each of those vendors' history/).waitFor();
    const [full] = await Promise.all([
      page.waitForEvent('download'),
      confirm.getByRole('button', { name: 'Export', exact: true }).click(),
    ]);
    expect(full.suggestedFilename()).toBe('vendors-export-full.csv');
    const fullText = await readFile((await full.path())!, 'utf8');
    expect(fullText).toContain('11112222');
    expect(fullText).not.toMatch(/\*{4}/);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog.getByLabel('CSV file').setInputFiles({
      name: 'vendors-export-full.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(fullText),
    });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog.getByRole('status').filter({ hasText: '0 vendors updated successfully' }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const history = await apiCall<{ data: Array<{ action: string; details: string | null }> }>(
      app.url,
      'GET',
      `/api/vendors/${a.id}/history`,
      undefined,
      token,
    );
    expect(history.body.data[0]).toMatchObject({ action: 'Banking unmasked' });
    expect(history.body.data[0].details).toMatch(/^Full bank numbers exported to CSV/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps a long import result inside an 800-pixel window: the title, Close and Done in view, the rows scrolling', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    // Twenty rows with masked numbers: ten long row errors, the count of the rest and the note.
    const rows = Array.from(
      { length: 20 },
      (_, i) => `${900_000 + i},*****0021,****4321,checking,Copied Bank`,
    );
    const csv = ['ID,Routing Number,Account Number,Account Type,Bank Name', ...rows].join('\n');
    await page.goto('/vendors');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import Vendor Banking' });
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'copied.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog.getByText('and 10 more errors').waitFor({ state: 'attached' });

    const inView = async (
      name: string,
      box: { x: number; y: number; width: number; height: number } | null,
    ) => {
      expect(box, name).not.toBeNull();
      expect(box!.y, name).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height, name).toBeLessThanOrEqual(DESKTOP.height);
      // Nothing scrolled lies over it: the point at its centre is the element itself.
      const hit = await page.evaluate(
        ([x, y]) => document.elementFromPoint(x, y)?.closest('h2, button')?.textContent ?? null,
        [box!.x + box!.width / 2, box!.y + box!.height / 2],
      );
      expect(hit, name).toBe(name);
    };
    const box = await dialog.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(DESKTOP.height);
    const body = dialog.locator('[data-slot=dialog-body]');
    const scroll = () => body.evaluate((el) => ({ height: el.scrollHeight, shown: el.clientHeight }));
    const { height, shown } = await scroll();
    expect(height).toBeGreaterThan(shown);
    const check = async () => {
      await inView('Import Vendor Banking', await dialog.getByRole('heading').boundingBox());
      await inView('Close', await dialog.getByRole('button', { name: 'Close' }).boundingBox());
      await inView('Done', await dialog.getByRole('button', { name: 'Done' }).boundingBox());
    };
    await check();
    // Scrolled to its end: the last line shows, and the title and the actions are still in view.
    await body.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await check();
    const more = await dialog.getByText('and 10 more errors').boundingBox();
    expect(more!.y + more!.height).toBeLessThanOrEqual(DESKTOP.height);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lets a moderator unmask, records each unmask in the history, and clears banking after a confirm', async () => {
    const target = realmVendors.find((v) => v.Active && v.PrimaryEmailAddr)!;
    const vendor = await vendorByName(target.DisplayName);
    const moderator = await createUser(app.url, app.admin, 'MODERATOR', {
      firstName: 'Mona',
      lastName: 'Reyes',
    });
    // Staff work on the vendors of the companies they are assigned to (decision 0001).
    await apiCall(
      app.url,
      'PUT',
      `/api/company/companies/${companyId}/assignments`,
      { approverId: moderator.id },
      token,
    );
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, moderator);
    await page.goto(`/vendors/${vendor.id}`);
    await page.getByText('Ready for ACH').waitFor();
    expect(await page.getByTestId('routing-number').textContent()).toBe('*****0021');
    await page.getByRole('button', { name: 'Show Full Numbers' }).click();
    await expect.poll(() => page.getByTestId('routing-number').textContent()).toBe('021000021');
    expect(await page.getByTestId('account-number').textContent()).toBe('000987654321');
    await page.getByText(/Sensitive banking data is visible/).waitFor();
    // The unmask is on the vendor's history with who did it.
    const history = page.getByTestId('vendor-history');
    await history.getByText('Banking unmasked').first().waitFor();
    await history
      .getByText(/by Mona Reyes/)
      .first()
      .waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Hide Numbers' }).click();
    await expect.poll(() => page.getByTestId('routing-number').textContent()).toBe('*****0021');

    // Clear, after a confirmation.
    await page.getByRole('button', { name: 'Clear Banking' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(/Bills to this vendor cannot be paid by ACH/).waitFor();
    await confirm.getByRole('button', { name: 'Clear Banking' }).click();
    await expectToast(page, 'Banking information cleared');
    await page.getByText('Missing Banking Info').waitFor();
    await history.getByText('Banking cleared').waitFor();
    // Forgetting is the administrator's alone.
    expect(await page.getByRole('button', { name: 'Forget Vendor' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("says 'No contact info' and 'Vendor not found' with the way back", async () => {
    const bare = realmVendors.find((v) => !v.PrimaryEmailAddr)!;
    const vendor = await vendorByName(bare.DisplayName);
    const { page } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/vendors/${vendor.id}`);
    await page.getByText('No contact info').waitFor();
    // An administrator forgets it, after a confirmation: it leaves the list.
    await page.getByRole('button', { name: 'Forget Vendor' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(/This cannot be undone/).waitFor();
    await confirm.getByRole('button', { name: 'Forget Vendor' }).click();
    await expectToast(page, 'Vendor forgotten');
    await page.waitForURL('**/vendors');
    await page.getByLabel('Search').fill(bare.DisplayName);
    await page.getByText('No vendors found').waitFor();
    await page.goto(`/vendors/${vendor.id}`);
    await page.getByText('Vendor not found').waitFor();
    await page.goto('/vendors/999999');
    await page.getByText('Vendor not found').waitFor();
    await page.getByRole('link', { name: 'Back to Vendors' }).last().click();
    await page.waitForURL('**/vendors');
    await page.getByRole('heading', { name: 'Vendors', level: 1 }).waitFor();
    await page.context().close();
  });
});
