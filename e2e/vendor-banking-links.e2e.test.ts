// The vendor's side of a held bank detail change, in real Chromium: the pages a vendor's contact opens
// from an e-mail, with no sign-in, against a real gateway, its workers, Postgres, Redis, the QuickBooks
// simulator and the SMTP catcher. The change notice's "This was not me" page shows the change by its
// tails and stops it only on a press; the micro-deposit page takes the two amounts of the penny-test
// file staff made, counts a wrong pair, confirms the right one (the change goes live), and locks after
// the last wrong try. The links are the ones in the caught e-mails.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api } from '../test/support/http.js';
import { readyToPay, syncVendors } from '../test/support/payments.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../tools/smtp-catcher.js';
import {
  apiLogin,
  type Credentials,
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  seriousAxeViolations,
} from './support/browser.js';

const qbApp = { clientId: 'billflow-e2e-vendor-links', clientSecret: 'e2e-vendor-links-secret' };
const COMPANY = 'Quayside Provisions';
const OLD = { routingNumber: '011000015', accountNumber: '55500011004' };

let sim: QboSandbox;
let catcher: SmtpCatcher;
let app: TestApp;
let browser: Browser;
let admin = '';
let makerToken = '';
let checkerToken = '';
let companyId = 0;
let vendors: Array<{ id: number; email: string; name: string }> = [];

async function until<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined) {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const vendor = async (id: number) =>
  (await api(app.url, 'GET', `/api/vendors/${id}`, { token: admin })).body.data;

/** A change by the maker to `accountNumber`, held, on a vendor whose live account is OLD. */
async function heldChange(vendorId: number, accountNumber: string): Promise<string> {
  const body = (b: { routingNumber: string; accountNumber: string }) => ({
    ...b,
    accountType: 'checking',
    bankName: null,
  });
  const first = await api(app.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
    body: body(OLD),
    token: makerToken,
  });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const ok = await api(
    app.url,
    'POST',
    `/api/vendors/${vendorId}/banking-changes/${first.body.data.pendingBankingChange.changeId}/approve`,
    { body: { reason: 'Set up on the phone number on file' }, token: checkerToken },
  );
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  const r = await api(app.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
    body: body({ routingNumber: '021000021', accountNumber }),
    token: makerToken,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.pendingBankingChange.status).toBe('pending');
  return r.body.data.pendingBankingChange.changeId;
}

/** The path a vendor e-mail's button opens (its host may be the configured public address). */
function linkIn(m: CaughtMessage, purpose: 'not-me' | 'micro-deposits'): string {
  const href = new RegExp(`href="(https?://[^/"]+/vendor-banking/${purpose}\\?token=[^"]+)"`).exec(
    m.html ?? '',
  );
  if (!href) throw new Error(`no ${purpose} link in "${m.subject}"`);
  const url = new URL(href[1].replace(/&amp;/g, '&'));
  return `${url.pathname}${url.search}`;
}

const mailTo = (to: string, subject: RegExp, has = '') =>
  until(`"${subject.source}" to ${to}`, () =>
    catcher
      .messages()
      .find(
        (m) =>
          m.to.some((x) => x.toLowerCase() === to.toLowerCase()) &&
          subject.test(m.subject) &&
          m.text.includes(has),
      ),
  );

/** Staff start a micro-deposit check and download its file: the two amounts it credits, in cents. */
async function microDeposits(vendorId: number, changeId: string): Promise<[number, number]> {
  const r = await api(
    app.url,
    'POST',
    `/api/vendors/${vendorId}/banking-changes/${changeId}/micro-deposits`,
    {
      token: checkerToken,
    },
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const md = r.body.data.pendingBankingChange.microDeposits;
  const file = await fetch(`${app.url}${md.fileUrl}`, {
    headers: { authorization: `Bearer ${checkerToken}` },
  });
  expect(file.status).toBe(200);
  const amounts = (await file.text())
    .split(/\r?\n/)
    .filter((l) => l.startsWith('6'))
    .map((l) => Number(l.slice(29, 39)));
  expect(amounts).toHaveLength(2);
  return [amounts[0], amounts[1]];
}

const dollars = (cents: number) => `0.${String(cents).padStart(2, '0')}`;

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl } }),
    launchBrowser(),
  ]);
  admin = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  const maker: Credentials = await createUser(app.url, app.admin, 'MODERATOR', {
    firstName: 'Mia',
    lastName: 'Maker',
  });
  const checker: Credentials = await createUser(app.url, app.admin, 'MODERATOR', {
    firstName: 'Cody',
    lastName: 'Checker',
  });
  [makerToken, checkerToken] = await Promise.all(
    [maker, checker].map(async (c) => (await apiLogin(app.url, c)).tokens.accessToken),
  );
  const c = await api(app.url, 'POST', '/api/company/companies', { body: { name: COMPANY }, token: admin });
  companyId = c.body.data.id;
  await connectOverHttp({ gatewayUrl: app.url, simUrl: sim.url, token: admin, companyId, app: qbApp });
  await readyToPay(app.url, admin, companyId, { bankingControl: true });
  await syncVendors(app.url, admin, companyId);
  const list = await api(app.url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token: admin });
  vendors = (list.body.data as Array<{ id: number; email: string | null; name: string }>)
    .filter((v): v is { id: number; email: string; name: string } => Boolean(v.email))
    .map((v) => ({ id: v.id, email: v.email, name: v.name }));
  expect(vendors.length).toBeGreaterThanOrEqual(3);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await catcher?.stop();
  await sim?.close();
});

describe('the vendor’s pages from the e-mails', () => {
  it('"This was not me" shows the change by its tails and stops it only when pressed', async () => {
    const v = vendors[0];
    const changeId = await heldChange(v.id, '41414141414');
    const notice = await mailTo(v.email, /were changed$/, 'account ending 1414');
    const { context, page } = await openPage(browser, app.url);
    try {
      await page.goto(linkIn(notice, 'not-me'));
      const card = page.getByTestId('vendor-link');
      await card.getByRole('heading', { name: 'A change of your bank details', level: 1 }).waitFor();
      await card.getByText('Mia Maker').waitFor();
      const text = (await card.textContent()) ?? '';
      expect(text).toContain(COMPANY);
      expect(text).toMatch(/Account \*+1414/);
      expect(text).toMatch(/Account \*+1004/);
      expect(text).not.toContain('41414141414');
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Opening the page changed nothing.
      expect((await vendor(v.id)).pendingBankingChange).toMatchObject({ changeId, status: 'pending' });

      await card.getByRole('button', { name: 'This was not me: stop this change' }).click();
      await card
        .getByRole('status')
        .getByText(/The change is stopped: no payment goes to the new account/)
        .waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      expect((await vendor(v.id)).pendingBankingChange).toMatchObject({ changeId, status: 'frozen' });
      // Every ADMIN is told.
      await mailTo(app.admin.email, /says a bank details change was not theirs$/);

      // Opened again, the link says it is done and offers nothing.
      await page.reload();
      await card.getByRole('heading', { name: 'A change of your bank details', level: 1 }).waitFor();
      await card.getByText('Mia Maker').waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('micro-deposits: a wrong pair takes a try, the right pair makes the change live', async () => {
    const v = vendors[1];
    const changeId = await heldChange(v.id, '52525252525');
    const [a, b] = await microDeposits(v.id, changeId);
    const mail = await mailTo(v.email, /^Confirm your new bank account with /, 'account ending 2525');
    const { context, page } = await openPage(browser, app.url, { viewport: { width: 390, height: 800 } });
    try {
      await page.goto(linkIn(mail, 'micro-deposits'));
      const card = page.getByTestId('vendor-link');
      await card.getByRole('heading', { name: 'Confirm your new bank account', level: 1 }).waitFor();
      expect(await card.getByTestId('tries-left').textContent()).toBe('3 tries left');
      expect(await seriousAxeViolations(page)).toEqual([]);

      await card.getByLabel('First amount').fill(dollars(a === 99 ? 1 : a + 1));
      await card.getByLabel('Second amount').fill(dollars(b));
      await card.getByRole('button', { name: 'Confirm the amounts' }).click();
      await card.getByRole('alert').getByText('Those amounts do not match. 2 tries left.').waitFor();
      expect(await card.getByTestId('tries-left').textContent()).toBe('2 tries left');
      expect((await vendor(v.id)).accountNumber).toMatch(/1004$/);

      // The right pair, in the other order, as a statement may show them.
      await card.getByLabel('First amount').fill(`$${dollars(b)}`);
      await card.getByLabel('Second amount').fill(dollars(a));
      await card.getByRole('button', { name: 'Confirm the amounts' }).click();
      await card
        .getByRole('status')
        .getByText(`Thank you: the new bank account is confirmed with ${COMPANY}.`)
        .waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      const live = await vendor(v.id);
      expect(live.accountNumber).toMatch(/2525$/);
      expect(live.pendingBankingChange).toBeNull();
    } finally {
      await context.close();
    }
  }, 180_000);

  it('micro-deposits: the last wrong try locks the check, and the change stays held', async () => {
    const v = vendors[2];
    const changeId = await heldChange(v.id, '63636363636');
    const [a, b] = await microDeposits(v.id, changeId);
    const mail = await mailTo(v.email, /^Confirm your new bank account with /, 'account ending 3636');
    const { context, page } = await openPage(browser, app.url);
    try {
      await page.goto(linkIn(mail, 'micro-deposits'));
      const card = page.getByTestId('vendor-link');
      const wrong = dollars(a === 99 || b === 99 ? 98 : 99);
      for (const left of [2, 1]) {
        await card.getByLabel('First amount').fill(wrong);
        await card.getByLabel('Second amount').fill(wrong);
        await card.getByRole('button', { name: 'Confirm the amounts' }).click();
        await card
          .getByRole('alert')
          .getByText(`Those amounts do not match. ${left} ${left === 1 ? 'try' : 'tries'} left.`)
          .waitFor();
      }
      await card.getByLabel('First amount').fill(wrong);
      await card.getByLabel('Second amount').fill(wrong);
      await card.getByRole('button', { name: 'Confirm the amounts' }).click();
      await card
        .getByRole('alert')
        .getByText(/no tries are left: the check is locked/)
        .waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      // Even the right amounts no longer act: the change waits for staff.
      const after = await api(
        app.url,
        'POST',
        `/api/vendors/banking-links/micro-deposits?${new URL(`http://x${linkIn(mail, 'micro-deposits')}`).search.slice(1)}`,
        { body: { amounts: [dollars(a), dollars(b)] } },
      );
      expect(after.status).toBe(409);
      const held = await vendor(v.id);
      expect(held.accountNumber).toMatch(/1004$/);
      expect(held.pendingBankingChange).toMatchObject({ changeId, status: 'pending' });
    } finally {
      await context.close();
    }
  }, 180_000);
});
