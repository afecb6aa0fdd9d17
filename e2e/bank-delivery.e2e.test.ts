// A file on its way to the bank and back, in real Chromium against a real gateway, Postgres, Redis,
// the QuickBooks simulator and the bank sandbox (a real SFTP server): a company sends its files over
// SFTP; an approved file waits for its cut-off window, and the ADMIN presses Send now on the
// approval; the system delivers it, the approval reads BANK_UPLOADED with the file sent; the bank
// acknowledges it and returns one vendor's entry with R03, and the approval shows the return beside
// its status, in plain words, with the vendor's bills open again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollBank } from '../services/payments/delivery.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn as apiSignIn } from '../test/support/http.js';
import {
  connectedCompany,
  NACHA_CONFIG,
  nachaOutcome,
  readyToPay,
  syncVendors,
} from '../test/support/payments.js';
import { type BankSandbox, startBankSandbox } from '../tools/bank-sandbox/server.js';
import type { QbBill } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { ensureWebBuild, launchBrowser, openPage, seriousAxeViolations, signIn } from './support/browser.js';

const A = '/api/bill-approval/approvals';
const PASSWORD = 'bank-e2e-pass-31';
const qbApp = { clientId: 'billflow-bank-e2e', clientSecret: 'bank-e2e-secret-4242' };

let sim: QboSandbox;
let bank: BankSandbox;
let stateDir: string;
let app: TestApp;
let browser: Browser;
let approvalId = '';
let companyId = 0;

beforeAll(async () => {
  await ensureWebBuild();
  stateDir = mkdtempSync(path.join(tmpdir(), 'billflow-bank-e2e-'));
  bank = await startBankSandbox({
    stateDir,
    users: [{ routing: NACHA_CONFIG.bankRoutingNumber, username: 'e2e-ap', password: PASSWORD }],
    rules: [{ match: { accountSuffix: '0003' }, answer: { kind: 'return', code: 'R03' } }],
    answerDelaySeconds: 3600,
  });
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  const token = (await apiSignIn(app.url, app.admin.email, app.admin.password)).tokens.accessToken;
  const connected = await connectedCompany({ url: app.url, sim, token, app: qbApp, name: 'Chromium Chairs' });
  companyId = connected.companyId;
  const account = connected.realm.accounts.find((a) => a.AccountType === 'Bank' && a.Active)!;
  await readyToPay(app.url, token, companyId, { paymentAccount: account.Id });
  const vendorIds = new Map((await syncVendors(app.url, token, companyId)).map((v) => [v.qbVendorId, v.id]));
  const bills: QbBill[] = [];
  for (const b of connected.realm.bills)
    if (
      b.Balance > 0 &&
      vendorIds.has(b.VendorRef.value) &&
      !bills.some((x) => x.VendorRef.value === b.VendorRef.value)
    )
      bills.push(b);
  bills.length = 2;
  for (const [i, b] of bills.entries()) {
    const r = await api(app.url, 'PUT', `/api/vendors/${vendorIds.get(b.VendorRef.value)}/banking`, {
      body: {
        routingNumber: '011000015',
        accountNumber: i === 0 ? '7300000003' : '7300000050',
        accountType: 'checking',
        bankName: 'BofA',
      },
      token,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const set = await api(app.url, 'PUT', `/api/company/companies/${companyId}/bank-connection`, {
    body: {
      mode: 'sftp',
      host: '127.0.0.1',
      port: bank.sftpPort,
      username: 'e2e-ap',
      password: PASSWORD,
      hostKeyFingerprint: bank.hostKeyFingerprint(),
    },
    token,
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const billIds = bills.map((b) => b.Id);
  const c = await api(app.url, 'POST', A, {
    body: { companyId, billIds, recipients: ['ap@chairs.test'] },
    token,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  approvalId = c.body.data.id;
  const a = await api(app.url, 'PUT', `${A}/${approvalId}/approve`, {
    body: { approvedBills: billIds },
    token,
  });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expect((await nachaOutcome(app.url, token, approvalId)).status).toBe('NACHA_GENERATED');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
  await bank?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('a file to the bank and back, on the approval', () => {
  it('an ADMIN sends the waiting file now; the bank takes it, then returns one vendor with R03', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`${app.url}/approvals/${approvalId}`);
    const words = page.getByTestId('bank-delivery-words');
    await expect
      .poll(() => words.textContent(), { timeout: 30_000 })
      .toMatch(/^Waiting for the .* cut-off \(New York\)/);
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Send now' }).click();
    // Delivered by the system: the card says so, the status moves, nobody at the bank acted.
    await expect.poll(() => words.textContent(), { timeout: 30_000 }).toMatch(/^Sent to the bank/);
    await page.getByText('Bank Uploaded', { exact: true }).first().waitFor();

    // The bank's outbox: the acknowledgement, then its return for the account ending 0003.
    await pollBank(app.started.app, companyId, {});
    await fetch(`${bank.hooksUrl}/__bank/answer-now`, { method: 'POST' });
    await pollBank(app.started.app, companyId, {});
    // Shown live: the approval's subscription pushes the return to the open page.
    await page.getByTestId('bank-entries-card').waitFor({ timeout: 30_000 });
    await page
      .getByText(/^Returned R03/)
      .first()
      .waitFor();
    await expect
      .poll(() => page.getByTestId('bank-payment-state').first().textContent())
      .toBe('Partly returned');
    await expect.poll(() => words.textContent()).toMatch(/the bank acknowledged it/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
