// A changed bank account never reaches a payment file unchecked, in real Chromium against a real
// gateway, its workers, Postgres, Redis, the QuickBooks simulator and the SMTP catcher, with the
// company's control on bank detail changes on (the default): a MODERATOR changes a vendor's account
// on the vendor's page → the vendor's e-mail on record gets the notice (last four digits only, a "this
// was not me" link) → an approval of that vendor's bills shows the pending change, and its file leaves
// the vendor out, named → a second MODERATOR approves the change on the vendor's page → the approval
// is approved again → the file pays the new account (read with the project's NACHA parser) → the
// vendor's history tells the whole story, masked → the ADMIN's operations page names the vendor as
// paid soon after a change.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAchFile } from '../services/nacha/parser.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api } from '../test/support/http.js';
import { readyToPay, syncVendors } from '../test/support/payments.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import type { QbBill, QbVendor, Realm } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from '../tools/smtp-catcher.js';
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
const qbApp = { clientId: 'billflow-e2e-banking', clientSecret: 'e2e-banking-secret-value' };
const RECIPIENT = 'ap.clerk@banking-client.test';
const OLD = { routing: '011000015', account: '55500011004' };
const NEW = { routing: '021000021', account: '66666666666' };
const OTHER = { routing: '011000015', account: '77700022005' };

let sim: QboSandbox;
let catcher: SmtpCatcher;
let app: TestApp;
let browser: Browser;
let admin = '';
let companyId = 0;
let realm: Realm;
/** The maker of the change, and the second MODERATOR who approves it. */
let maker: Credentials & { id: number };
let checker: Credentials & { id: number };
let checkerToken = '';
/** The vendor whose account changes (it has an e-mail on record), and another one on the same approval. */
let target: { qb: QbVendor; id: number; email: string; bills: QbBill[] };
let other: { qb: QbVendor; id: number; bills: QbBill[] };

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function detail(id: string) {
  return (await api(app.url, 'GET', `${A}/${id}`, { token: admin })).body.data;
}

/** A stored NACHA file's text, as an ADMIN downloads it. */
async function fileText(url: string): Promise<string> {
  const res = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The file's credit entries as (routing, account) pairs. */
function payees(text: string) {
  expect(validateAchFile(text)).toEqual([]);
  return parseAchFile(text).batches.flatMap((b) =>
    b.entries
      .filter((e) => e.transactionCode === 22 || e.transactionCode === 32)
      .map((e) => ({
        routing: `${e.rdfiIdentification}${e.checkDigit}`,
        account: e.dfiAccountNumber.trim(),
        cents: e.amountCents,
      })),
  );
}

/** Bank details set over REST by the admin and approved by the checker: live before the story starts. */
async function liveBanking(vendorId: number, b: { routing: string; account: string }) {
  const put = await api(app.url, 'PUT', `/api/vendors/${vendorId}/banking`, {
    body: { routingNumber: b.routing, accountNumber: b.account, accountType: 'checking', bankName: 'BofA' },
    token: admin,
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const change = put.body.data.pendingBankingChange;
  expect(change?.status).toBe('pending');
  const ok = await api(
    app.url,
    'POST',
    `/api/vendors/${vendorId}/banking-changes/${change.changeId}/approve`,
    {
      body: { reason: 'Set up with the vendor on the phone number on file' },
      token: checkerToken,
    },
  );
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
}

const mailTo = (to: string, subject: RegExp) => (m: CaughtMessage) =>
  m.to.some((x) => x.toLowerCase() === to.toLowerCase()) && subject.test(m.subject);

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl } }),
    launchBrowser(),
  ]);
  admin = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  maker = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Mia', lastName: 'Maker' });
  checker = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Cody', lastName: 'Checker' });
  checkerToken = (await apiLogin(app.url, checker)).tokens.accessToken;
  const c = await api(app.url, 'POST', '/api/company/companies', {
    body: { name: 'Harbor Bakery' },
    token: admin,
  });
  companyId = c.body.data.id;
  const { realmId } = await connectOverHttp({
    gatewayUrl: app.url,
    simUrl: sim.url,
    token: admin,
    companyId,
    app: qbApp,
  });
  realm = sim.realms().find((r) => r.realmId === realmId)!;
  // The control stays on (the default); staff open to every approval of the company.
  await readyToPay(app.url, admin, companyId, { bankingControl: true });
  const synced = new Map((await syncVendors(app.url, admin, companyId)).map((v) => [v.qbVendorId, v.id]));
  const billsOf = (v: QbVendor) => realm.bills.filter((b) => b.VendorRef.value === v.Id && b.Balance > 0);
  const payable = realm.vendors.filter((v) => v.Active && synced.has(v.Id) && billsOf(v).length > 0);
  const t = payable.find((v) => v.PrimaryEmailAddr)!;
  const o = payable.find((v) => v.Id !== t.Id)!;
  target = {
    qb: t,
    id: synced.get(t.Id)!,
    email: t.PrimaryEmailAddr!.Address,
    bills: billsOf(t).slice(0, 1),
  };
  other = { qb: o, id: synced.get(o.Id)!, bills: billsOf(o).slice(0, 1) };
  await liveBanking(target.id, OLD);
  await liveBanking(other.id, OTHER);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await catcher?.stop();
  await sim?.close();
});

async function history(page: Page) {
  return page.getByTestId('vendor-history').getByRole('listitem').allTextContents();
}

describe('a changed bank account', () => {
  it('is held, noticed, left out of the file until approved by a second person and approved again, then paid', async () => {
    const { context: makerCtx, page } = await openPage(browser, app.url);
    const { context: checkerCtx, page: second } = await openPage(browser, app.url);
    try {
      // 1. The MODERATOR changes the vendor's account on its page.
      await signIn(page, maker);
      await page.goto(`/vendors/${target.id}/edit-banking`);
      await page.getByRole('heading', { name: 'Edit Banking Information', level: 1 }).waitFor();
      await page.getByLabel('Routing Number').fill(NEW.routing);
      await page.getByLabel('Account Number').fill(NEW.account);
      await page.getByRole('button', { name: 'Save Banking Information' }).click();
      await expectToast(
        page,
        'Bank details change saved: it goes live once another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits',
      );
      await page.getByRole('heading', { name: 'Vendor Details', level: 1 }).waitFor();
      const held = page.getByTestId('pending-banking-change');
      await held.getByRole('heading', { name: 'Bank details change pending approval' }).waitFor();
      expect(await held.getByTestId('pending-account').textContent()).toMatch(/^\*+1004 → \*+6666$/);
      await held
        .getByText('An ADMIN or MODERATOR other than Mia Maker must approve or reject it', { exact: false })
        .waitFor();
      expect(await held.getByRole('button', { name: 'Approve Change' }).count()).toBe(0);
      // The live numbers stay the old ones; no full number anywhere on the page.
      expect(await page.getByTestId('account-number').textContent()).toMatch(/^\*+1004$/);
      expect(await page.content()).not.toContain(NEW.account);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // 2. The vendor's e-mail on record gets the notice: tails only, and the "this was not me" link.
      // (The first entry of its bank details, before the story, had its own notice.)
      const mailText = (m: CaughtMessage) => `${m.subject}\n${m.text}\n${m.html ?? ''}`;
      const notice = await catcher.waitFor(
        (m) => mailTo(target.email, /bank details .* were changed/i)(m) && mailText(m).includes('Mia Maker'),
        30_000,
      );
      const body = mailText(notice);
      expect(body).toContain('1004');
      expect(body).toContain('6666');
      expect(body).toContain('Mia Maker');
      expect(body).not.toContain(NEW.account);
      expect(body).not.toContain(OLD.account);
      expect(body).toMatch(/not me/i);

      // 3. An approval of the vendor's bills shows the pending change where money is decided...
      const created = await api(app.url, 'POST', A, {
        body: {
          companyId,
          billIds: [...target.bills, ...other.bills].map((b) => b.Id),
          recipients: [RECIPIENT],
        },
        token: admin,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const approvalId = created.body.data.id as string;
      await page.goto(`/approvals/${approvalId}`);
      const flags = page.getByTestId('banking-flags');
      const flag = flags.getByTestId(`banking-flag-${target.id}-pending-change`);
      await flag.waitFor();
      const said = (await flag.textContent()) ?? '';
      expect(said).toContain(`${target.qb.DisplayName}: Bank change pending`);
      expect(said).toMatch(/account \*+1004 → \*+6666, changed by Mia Maker on /);
      expect(said).toMatch(/Who must act: An ADMIN or MODERATOR other than Mia Maker must approve/);
      expect(said).not.toContain(NEW.account);
      expect(await seriousAxeViolations(page)).toEqual([]);
      // ... and the list row too.
      await page.goto('/approvals');
      await page.getByTestId(`approval-banking-flag-${approvalId}`).waitFor();

      // ... and once approved, its file leaves the vendor out, named.
      await page.goto(`/approvals/${approvalId}`);
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /Approve/ })
        .last()
        .click();
      const first = await until(
        () => detail(approvalId),
        (d) => d.nachaVersion === 1 && d.nachaProcessingStatus !== 'REQUESTED',
        'the first file',
      );
      const heldOut = page.getByTestId(`banking-review-${target.qb.Id}`);
      await heldOut.getByText('Change pending', { exact: true }).waitFor();
      expect(await heldOut.textContent()).toContain(`${target.qb.DisplayName}: bank details change pending`);
      // The rest of the file went ahead: the other vendor is paid, the changed one is not, and the
      // approval names it.
      expect(first.status).toBe('NACHA_GENERATED');
      const firstPaid = payees(await fileText(first.nachaFileUrl));
      expect(firstPaid.map((p) => p.account)).toEqual([OTHER.account]);
      expect(
        (first.nachaProblems as Array<{ vendorName: string | null; message: string }>).some(
          (p) => p.vendorName === target.qb.DisplayName && /held out of this file/.test(p.message),
        ),
        JSON.stringify(first.nachaProblems),
      ).toBe(true);

      // 4. A second MODERATOR approves the change on the vendor's page.
      await signIn(second, checker);
      await second.goto(`/vendors/${target.id}`);
      const pending = second.getByTestId('pending-banking-change');
      await pending.getByRole('button', { name: 'Approve Change' }).click();
      const dialog = second.getByRole('dialog', { name: 'Approve Bank Details Change' });
      await dialog.getByLabel('Reason *').fill('Called the vendor on the number we already had');
      await dialog.getByRole('button', { name: 'Approve Change' }).click();
      await expectToast(second, 'Bank details change approved: it is live');
      await pending.waitFor({ state: 'detached' });
      expect(await second.getByTestId('account-number').textContent()).toMatch(/^\*+6666$/);

      // The approval now names the vendor as changed after approval; it is approved again...
      await second.goto(`/approvals/${approvalId}`);
      const changed = second.getByTestId(`banking-review-${target.qb.Id}`);
      await changed.getByText('Changed after approval', { exact: true }).waitFor();
      expect(await seriousAxeViolations(second)).toEqual([]);
      expect(await changed.textContent()).toContain('bank details changed after approval: approve again');
      expect(await changed.textContent()).toMatch(/Approved: routing \*+0015, account \*+1004/);
      expect(await changed.textContent()).toMatch(/Now: routing \*+0021, account \*+6666/);
      await second.getByTestId('banking-review').getByRole('button', { name: 'Approve Again' }).click();
      const confirm = second.getByRole('dialog', { name: 'Approve Bank Details Again' });
      expect(await confirm.getByTestId('approve-again-vendors').textContent()).toMatch(/\*+6666 \(was /);
      await confirm.getByRole('button', { name: 'Approve Again' }).click();
      await expectToast(second, 'Approved again');
      await second.getByTestId('banking-review').waitFor({ state: 'detached' });
      // The next file pays it: Regenerate.
      await second.getByRole('button', { name: 'Regenerate NACHA', exact: true }).click();

      // 5. ... and the file pays the new account.
      const paidNew = await until(
        async () => {
          const d = await detail(approvalId);
          if (!d.nachaFileUrl || d.nachaProcessingStatus === 'REQUESTED') return null;
          const list = payees(await fileText(d.nachaFileUrl));
          return list.some((p) => p.account === NEW.account) ? list : null;
        },
        (v) => v !== null,
        'a file that pays the new account',
      );
      const paid = paidNew!.find((p) => p.account === NEW.account)!;
      expect(paid.routing).toBe(NEW.routing);
      expect(paid.cents).toBe(target.bills.reduce((s, b) => s + Math.round(b.Balance * 100), 0));
      expect(paidNew!.map((p) => p.account)).not.toContain(OLD.account);

      // 6. The vendor's history tells the whole story, masked.
      await page.goto(`/vendors/${target.id}`);
      await page.getByTestId('vendor-history').getByText('Bank details change live').first().waitFor();
      const story = await history(page);
      const line = (action: string) => story.find((s) => s.includes(action)) ?? '';
      expect(line('Bank details change held for approval')).toMatch(
        /banking form; account ending 1004 → account ending 6666/,
      );
      expect(line('Bank details change held for approval')).toContain('Mia Maker');
      expect(line('Vendor’s contact told of the change')).toMatch(
        /sent to the e-mail on record before the change/,
      );
      expect(line('Bank details change approved')).toContain('Cody Checker');
      expect(line('Bank details change approved')).toContain(
        'Called the vendor on the number we already had',
      );
      expect(line('Bank details change live')).toContain('approved by a second person');
      expect(story.join('\n')).not.toContain(NEW.account);
      // The change list says the same.
      const changes = page.getByTestId('banking-changes').getByRole('listitem');
      await changes.first().getByText('Approved', { exact: true }).waitFor();
      expect(await changes.first().textContent()).toMatch(/Approved by Cody Checker/);

      // 7. The ADMIN's operations page names the pattern: a change gone live, then paid within a day.
      const { context: adminCtx, page: ops } = await openPage(browser, app.url);
      try {
        await signIn(ops, app.admin);
        await ops.goto('/operations');
        const flagged = ops
          .getByTestId('changed-then-paid')
          .getByRole('listitem')
          .filter({ hasText: target.qb.DisplayName })
          .filter({ hasText: /to account \*+6666/ });
        await flagged.first().waitFor();
        const text = (await flagged.first().textContent()) ?? '';
        expect(text).toContain('by Mia Maker');
        expect(text).toContain('approved by a second person');
        expect(text).not.toContain(NEW.account);
        expect(await seriousAxeViolations(ops)).toEqual([]);
      } finally {
        await adminCtx.close();
      }
    } finally {
      await makerCtx.close();
      await checkerCtx.close();
    }
  }, 300_000);
});
