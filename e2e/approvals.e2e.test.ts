// The approval screens in real Chromium against a real gateway and the QuickBooks simulator: an admin creates
// an approval on /bills from the company's quick action (and a possible duplicate only after the explicit
// confirmation); the list's figures, filters, sorting and paging; a moderator approves a subset and rejects
// with the dialog's rules; a USER sees no actions; a change in one browser shows in another's list, figures
// and open detail without a reload; bulk approve and reject; the invoice PDF; segregation of duties as each
// viewer sees it, a moderator creating on /bills with the staff manager picker, the edit dialog, a policy
// change shown live and the CSV export; axe on every screen.
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qb } from '../services/companies/quickbooks.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import type { QbBill, Realm } from '../tools/qbo-sandbox/seed.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  apiCall,
  apiLogin,
  createUser,
  DESKTOP,
  ensureWebBuild,
  expectToast,
  launchBrowser,
  MOBILE,
  openPage,
  seriousAxeViolations,
  signIn,
  tableOverflow,
} from './support/browser.js';
import { isOperation } from './support/graphql.js';

let app: TestApp;
let sim: QboSandbox;
let browser: Browser;
let token = '';
let companyId = 0;
let realmId = '';
let realm: Realm;
let moderator: { email: string; password: string; id: number };
let viewer: { email: string; password: string; id: number };
const COMPANY = 'Juniper Office Supply';
const qbApp = { clientId: 'billflow-e2e-approvals', clientSecret: 'e2e-approvals-secret-value' };
const A = '/api/bill-approval/approvals';
/**
 * An approved approval's badge: the payments process manager asks for its file at once (NACHA_PENDING).
 * The badge comes first in the status cell; a payment problem's note may follow it.
 */
const APPROVED_ON = /^(Approved|NACHA Pending|NACHA Generated)(?![a-z])/;

interface ApprovalJson {
  id: string;
  status: string;
  billIdList: string[];
  approvedBillIdList: string[];
  confirmedDuplicates: Array<{ billId: string }>;
}

/** Open bills no test used yet; `withInvoice` picks bills with (true) or without (false) an attachable. */
const used = new Set<string>();
function freshBills(n: number, withInvoice?: boolean): QbBill[] {
  const attached = new Set(realm.attachables.flatMap((a) => a.AttachableRef.map((r) => r.EntityRef.value)));
  const out = realm.bills
    .filter((b) => b.Balance > 0 && !used.has(b.Id))
    .filter((b) => withInvoice === undefined || attached.has(b.Id) === withInvoice)
    .slice(0, n);
  if (out.length < n) throw new Error('the realm ran out of bills');
  for (const b of out) used.add(b.Id);
  return out;
}

/** Open bills no test used yet, as /bills orders them (due date, then id): the first page's. */
function firstOnScreen(n: number): QbBill[] {
  const out = realm.bills
    .filter((b) => b.Balance > 0 && !used.has(b.Id))
    .sort((x, y) => (x.DueDate ?? '').localeCompare(y.DueDate ?? '') || x.Id.localeCompare(y.Id))
    .slice(0, n);
  for (const b of out) used.add(b.Id);
  return out;
}

/** A new open bill in QuickBooks, due long ago so it heads /bills' first page. */
async function billInQuickBooks(body: Record<string, unknown>): Promise<{ Id: string }> {
  const conn = await qb(app.started.app).connections.get(companyId);
  const res = await fetch(`${sim.url}/v3/company/${realmId}/bill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${conn!.tokens!.accessToken}` },
    body: JSON.stringify({ DueDate: '2000-01-01', ...body }),
  });
  expect(res.status).toBe(200);
  const bill = ((await res.json()) as { Bill: { Id: string } }).Bill;
  used.add(bill.Id);
  return bill;
}

async function createApproval(billIds: string[], priority = 'MEDIUM'): Promise<ApprovalJson> {
  const r = await apiCall<{ data: ApprovalJson }>(
    app.url,
    'POST',
    A,
    { companyId, billIds, priority, recipients: ['payables@approvals-e2e.test'] },
    token,
  );
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.data;
}

async function stats() {
  const r = await apiCall<{
    data: { total: number; pending: number; approved: number; rejected: number; expired: number };
  }>(app.url, 'GET', `${A}/stats`, undefined, token);
  return r.body.data;
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

const short = (id: string) => id.slice(0, 8);

/** The approvals table's shown column headers (by text, the selection box's left out) and where they sit. */
function columnBoxes(page: Page): Promise<Record<string, { left: number; right: number }>> {
  return page.$$eval('[data-slot=table] thead th', (ths) =>
    Object.fromEntries(
      ths
        .filter((th) => th.getBoundingClientRect().width > 0 && th.textContent?.trim())
        .map((th) => {
          const r = th.getBoundingClientRect();
          return [th.textContent!.trim(), { left: r.left, right: r.right }];
        }),
    ),
  );
}
const row = (page: Page, id: string) => page.getByTestId(`approval-row-${id}`);

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
  moderator = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Mona', lastName: 'Moss' });
  viewer = await createUser(app.url, app.admin, 'USER', { firstName: 'Vic', lastName: 'Viewer' });
  // Staff see the companies they are assigned to: the moderator approves, the viewer processes.
  const c = await apiCall<{ data: { id: number } }>(
    app.url,
    'POST',
    '/api/company/companies',
    { name: COMPANY, approverId: moderator.id, processorId: viewer.id },
    token,
  );
  companyId = c.body.data.id;
  // The admin both creates and approves in several of these screens: the company lets the creator
  // approve (an ADMIN's recorded choice); the segregation test below turns it on from the screen.
  await apiCall(
    app.url,
    'PUT',
    `/api/bill-approval/policies/${companyId}`,
    { creatorMayNotApprove: false, secondApprovalThreshold: null },
    token,
  );
  ({ realmId } = await connectOverHttp({
    gatewayUrl: app.url,
    simUrl: sim.url,
    token,
    companyId,
    app: qbApp,
  }));
  realm = sim.realms().find((r) => r.realmId === realmId)!;
  await apiCall(
    app.url,
    'POST',
    '/api/manager/managers',
    { firstName: 'Dana', lastName: 'Whitfield', email: 'dana@example.com' },
    token,
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

describe('approval screens', () => {
  it('creates an approval on /bills from the company quick action; a possible duplicate needs the confirmation', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/companies/${companyId}`);
    await page.getByRole('link', { name: 'Create Approval from Bills' }).click();
    await page.waitForURL(`**/bills?companyId=${companyId}`);
    await page.getByRole('heading', { name: 'Create Approval from Bills', level: 1 }).waitFor();
    // The company comes preselected; its open QuickBooks bills are listed with their flags.
    await page.getByRole('combobox', { name: 'Company', exact: true }).filter({ hasText: COMPANY }).waitFor();
    const [b1, b2] = firstOnScreen(2);
    await page.getByTestId(`bill-row-${b1.Id}`).waitFor();
    // Paged as the approvals list is: ten a page, every open bill counted in the footer.
    const open = realm.bills.filter((b) => b.Balance > 0).length;
    expect(await page.locator('[data-testid^="bill-row-"]').count()).toBe(Math.min(10, open));
    expect(await page.getByTestId('page-summary').textContent()).toBe(
      `Page 1 of ${Math.ceil(open / 10)} • Total: ${open} bills`,
    );
    expect(await page.getByTestId(`bill-row-${b1.Id}`).textContent()).toContain(b1.DocNumber);
    expect(await page.getByTestId(`bill-row-${b1.Id}`).textContent()).toContain('Missing Banking Info');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByTestId(`bill-row-${b1.Id}`).getByRole('checkbox').check();
    await page.getByTestId(`bill-row-${b2.Id}`).getByRole('checkbox').check();
    await page.getByTestId('selection-summary').filter({ hasText: '2 selected' }).waitFor();
    await choose(page, 'Manager', 'Dana Whitfield');
    await choose(page, 'Priority', 'High');
    await page.getByRole('button', { name: 'Create Approval' }).click();
    await expectToast(page, 'Approval created successfully');
    await page.waitForURL(/\/approvals\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: `Approval #${short(id)}`, level: 1 }).waitFor();
    await page.getByTestId(`bill-card-${b1.Id}`).waitFor();
    await page.getByTestId(`bill-card-${b2.Id}`).waitFor();
    await page.getByText('Dana Whitfield').first().waitFor();
    expect(await page.getByTestId('detail-status').textContent()).toBe('Pending');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A bill in QuickBooks that looks like b1 (same vendor, amount and document number).
    const copy = await billInQuickBooks({
      VendorRef: { value: b1.VendorRef.value },
      DocNumber: b1.DocNumber,
      Line: [{ Amount: b1.TotalAmt, Description: 'Same invoice again' }],
    });

    await page.goto(`/bills?companyId=${companyId}`);
    const copyRow = page.getByTestId(`bill-row-${copy.Id}`);
    await copyRow.getByTestId('duplicate-flag').waitFor();
    expect(await copyRow.textContent()).toContain(`Possible duplicate of bill ${b1.Id}`);
    // The bills already in the open approval say so and cannot be chosen again.
    const taken = page.getByTestId(`bill-row-${b1.Id}`);
    expect(await taken.textContent()).toContain(`In approval #${short(id)}`);
    expect(await taken.getByRole('checkbox').isDisabled()).toBe(true);

    await copyRow.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Create Approval' }).click();
    const dialog = page.getByRole('dialog', { name: 'Possible duplicate bills' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Confirm and Create' });
    expect(await confirm.isDisabled()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole('checkbox').check();
    await confirm.click();
    await expectToast(page, 'Approval created successfully');
    await page.waitForURL(
      (url) => /\/approvals\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(id),
    );
    await page.getByText(`${copy.Id} (like ${b1.Id})`, { exact: true }).waitFor();
    await page.getByTestId('history').getByText(`possible duplicates confirmed: ${copy.Id}`).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists with the figures, filters that reset the page, sorting and paging', async () => {
    const made: Array<{ approval: ApprovalJson; bill: QbBill }> = [];
    for (let i = 0; i < 11; i++) {
      const [bill] = freshBills(1);
      made.push({ approval: await createApproval([bill.Id], i < 6 ? 'URGENT' : 'MEDIUM'), bill });
    }
    const s = await stats();
    expect(s.total).toBeGreaterThan(10);
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/approvals');
    await page.getByRole('heading', { name: 'Bill Approvals', level: 1 }).waitFor();
    await page
      .getByTestId('stat-total-value')
      .filter({ hasText: String(s.total) })
      .waitFor();
    expect(await page.getByTestId('stat-pending-value').textContent()).toBe(String(s.pending));
    expect(await page.getByTestId('stat-rejected-value').textContent()).toBe('0');
    // The second row: bill figures exist.
    await page.getByTestId('stat-processed-bills').waitFor();
    expect(await page.getByTestId('stat-approved-bills').textContent()).toContain('0% approval rate');
    expect(await page.getByTestId('stat-processed-amount-value').textContent()).toMatch(/^\$[\d,]+\.\d{2}$/);

    const pages = Math.ceil(s.total / 10);
    const summary = page.getByTestId('page-summary');
    expect(await summary.textContent()).toBe(`Page 1 of ${pages} • Total: ${s.total} approvals`);
    expect(await page.locator('[data-testid^="approval-row-"]').count()).toBe(10);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Twelve columns on a 1280-pixel screen: all fit beside the sidebar, none pinned over another;
    // Created is in view, left of Actions (it must not hide under a pinned Actions column).
    await expect.poll(() => tableOverflow(page)).toBeLessThanOrEqual(0);
    const headers = await columnBoxes(page);
    expect(Object.keys(headers)).toEqual([
      'ID',
      'Company',
      'Processed Bills',
      'Approved Bills',
      'Status',
      'Priority',
      'Processed Amount',
      'Approved Amount',
      'Manager',
      'Created',
      'Actions',
    ]);
    expect(headers.Created.right).toBeLessThanOrEqual(headers.Actions.left + 0.5);
    expect(headers.Actions.right).toBeLessThanOrEqual(DESKTOP.width);
    const firstRow = page.locator('[data-testid^="approval-row-"]').first();
    expect(await firstRow.getByRole('button', { name: /^Actions for approval/ }).isVisible()).toBe(true);
    // With their own columns in view, the company and the amount are not repeated under the ID.
    expect(await firstRow.getByTestId('row-company').isVisible()).toBe(false);
    expect(await firstRow.getByTestId('row-amount').isVisible()).toBe(false);
    await page.setViewportSize({ width: 1536, height: 864 });
    await expect.poll(() => tableOverflow(page)).toBeLessThanOrEqual(0);
    // A phone (390 × 844): what matters, in view without scrolling sideways: the ID with each row's
    // company and amount under it, the status and the actions.
    await page.setViewportSize(MOBILE);
    await expect.poll(() => tableOverflow(page)).toBeLessThanOrEqual(0);
    const phone = await columnBoxes(page);
    expect(Object.keys(phone)).toEqual(['ID', 'Status', 'Actions']);
    for (const box of Object.values(phone)) expect(box.right).toBeLessThanOrEqual(MOBILE.width);
    const status = await firstRow.getByTestId('status').boundingBox();
    expect(status!.x + status!.width).toBeLessThanOrEqual(MOBILE.width);
    expect(await firstRow.getByTestId('status').isVisible()).toBe(true);
    for (const [testId, text] of [
      ['row-company', /^Juniper Office Supply$/],
      ['row-amount', /^\$[\d,]+\.\d{2}$/],
    ] as const) {
      const cell = firstRow.getByTestId(testId);
      expect(await cell.isVisible(), testId).toBe(true);
      expect(await cell.textContent(), testId).toMatch(text);
      const box = await cell.boundingBox();
      expect(box!.x + box!.width, testId).toBeLessThanOrEqual(MOBILE.width);
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    // At 320 CSS pixels (WCAG's reflow width, a small phone) every figure stays inside its card,
    // the dollar amounts included.
    await page.setViewportSize({ width: 320, height: 640 });
    const spills = () =>
      page.$$eval('[data-testid^="stat-"][data-testid$="-value"]', (els) =>
        els
          .filter((e) => {
            const card = e.closest('[data-slot=card]')!.getBoundingClientRect();
            const text = document.createRange();
            text.selectNodeContents(e);
            return text.getBoundingClientRect().right > card.right;
          })
          .map((e) => e.textContent),
      );
    await expect.poll(spills).toEqual([]);
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await summary.filter({ hasText: `Page 2 of ${pages}` }).waitFor();
    await page.getByRole('button', { name: 'First', exact: true }).click();
    await summary.filter({ hasText: `Page 1 of ${pages}` }).waitFor();
    await page.getByRole('button', { name: 'Last', exact: true }).click();
    await summary.filter({ hasText: `Page ${pages} of ${pages}` }).waitFor();

    // Any filter goes back to page 1; the toggle shows 'Active'.
    expect(await page.getByTestId('filters-active').count()).toBe(0);
    await page.getByRole('button', { name: 'Filters' }).click();
    await choose(page, 'Priority', 'Urgent');
    await summary.filter({ hasText: 'Page 1 of 1 • Total: 6 approvals' }).waitFor();
    await page.getByTestId('filters-active').waitFor();
    expect(await page.locator('[data-testid^="approval-row-"]').count()).toBe(6);
    await choose(page, 'Status', 'Rejected');
    await page.getByText('No approvals found').waitFor();
    await choose(page, 'Status', 'All');
    // Search by a bill's document number finds its approval (debounced).
    await page.getByLabel('Search').fill(made[0].bill.DocNumber);
    await summary.filter({ hasText: 'Total: 1 approval' }).waitFor();
    await row(page, made[0].approval.id).waitFor();
    await page.getByLabel('Search').fill('');
    await choose(page, 'Priority', 'All');
    await choose(page, 'Company', COMPANY);
    await summary.filter({ hasText: `Total: ${s.total} approvals` }).waitFor();

    // Page size 25: one page; sorting by Processed Amount follows the server's order.
    await choose(page, 'Rows per page', '25');
    await summary.filter({ hasText: `Page 1 of ${Math.ceil(s.total / 25)}` }).waitFor();
    await page.getByRole('button', { name: 'Processed Amount' }).click();
    const sorted = await apiCall<{ data: Array<{ id: string }> }>(
      app.url,
      'GET',
      `${A}?sortBy=totalAmount&sortOrder=asc&limit=25`,
      undefined,
      token,
    );
    await expect
      .poll(() => page.locator('[data-testid^="approval-row-"]').first().getAttribute('data-testid'))
      .toBe(`approval-row-${sorted.body.data[0].id}`);
    expect(await page.getByRole('columnheader', { name: 'Processed Amount' }).getAttribute('aria-sort')).toBe(
      'ascending',
    );
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a moderator approves a subset and rejects under the dialog’s rules; a row reject with an empty answer does nothing', async () => {
    const [x, y] = freshBills(2);
    const subset = await createApproval([x.Id, y.Id]);
    const toReject = await createApproval([freshBills(1)[0].Id]);
    const [w] = freshBills(1);
    const whole = await createApproval([w.Id]);
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, moderator);

    // The row's approve button approves all the approval's bills.
    await page.goto('/approvals');
    await row(page, whole.id)
      .getByRole('button', { name: `Approve approval ${short(whole.id)}` })
      .click();
    await expectToast(page, 'Approval approved successfully');
    await row(page, whole.id).getByTestId('status').filter({ hasText: APPROVED_ON }).waitFor();
    expect(await row(page, whole.id).getByTestId('approved-bills').textContent()).toBe('1 (100%)');
    expect(
      await row(page, whole.id)
        .getByRole('button', { name: /^Approve approval/ })
        .count(),
    ).toBe(0);

    await page.goto(`/approvals/${subset.id}`);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const approve = page.getByRole('dialog', { name: 'Approve Bills' });
    await approve.getByRole('checkbox', { name: `Approve bill ${y.Id}` }).uncheck();
    await approve.getByRole('button', { name: 'Approve 1 bill' }).click();
    await expectToast(page, 'Approval approved successfully');
    await page.getByTestId('detail-status').filter({ hasText: APPROVED_ON }).waitFor();
    expect(await page.getByTestId('approved-bill-ids').textContent()).toBe(x.Id);
    expect(await page.getByTestId('approved-bills-list').locator('li').count()).toBe(1);
    // Decided: no more actions.
    expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    const server = await apiCall<{ data: ApprovalJson }>(
      app.url,
      'GET',
      `${A}/${subset.id}`,
      undefined,
      token,
    );
    expect(server.body.data).toMatchObject({ approvedBillIdList: [x.Id] });
    // Approved, and its payment file asked for at once by the payments process manager.
    expect(['APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED']).toContain(server.body.data.status);

    // The row reject: an empty answer to the prompt changes nothing.
    await page.goto('/approvals');
    const rejections: string[] = [];
    page.on('request', (r) => {
      if (isOperation(r, 'RejectApproval')) rejections.push(r.url());
    });
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept('');
    });
    await row(page, toReject.id)
      .getByRole('button', { name: `Reject approval ${short(toReject.id)}` })
      .click();
    await expect.poll(() => asked).toEqual(['Please provide a reason for rejection:']);
    // A read asked for after the answer: no rejection went out before it, and it finds the approval
    // still pending.
    const reread = page.waitForRequest((r) => isOperation(r, 'Approvals'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await (await reread).response();
    expect(rejections).toEqual([]);
    await row(page, toReject.id).getByTestId('status').filter({ hasText: 'Pending' }).waitFor();

    // The detail's dialog: submit disabled while empty, a blank reason toasts, a reason rejects.
    await page.goto(`/approvals/${toReject.id}`);
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    const reject = page.getByRole('dialog', { name: 'Reject Approval' });
    const reason = reject.getByLabel('Rejection Reason *');
    expect(await reason.getAttribute('rows')).toBe('4');
    const submit = reject.getByRole('button', { name: 'Reject Approval' });
    expect(await submit.isDisabled()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await reason.fill('   ');
    await submit.click();
    await expectToast(page, 'Rejection reason required');
    await reason.fill('  Invoice does not match the purchase order  ');
    await submit.click();
    await expectToast(page, 'Approval rejected successfully');
    await page.getByTestId('detail-status').filter({ hasText: 'Rejected' }).waitFor();
    expect(await page.getByTestId('rejection-reason').textContent()).toBe(
      'Invoice does not match the purchase order',
    );
    await page.getByText('Rejection Details').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a USER sees the list and the detail without any action', async () => {
    const pending = await createApproval([freshBills(1)[0].Id]);
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, viewer);
    await page.goto('/approvals');
    await row(page, pending.id).waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Approve|Reject) approval/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'New Approval' }).count()).toBe(0);
    await row(page, pending.id)
      .getByRole('button', { name: `Actions for approval ${short(pending.id)}` })
      .click();
    await page.getByRole('menuitem', { name: 'View Details' }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'Delete' }).count()).toBe(0);
    await page.getByRole('menuitem', { name: 'View Details' }).click();
    await page.getByRole('heading', { name: `Approval #${short(pending.id)}`, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Refresh' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject', exact: true }).count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a change made in another browser in the list, its figures and an open detail without reload', async () => {
    const target = await createApproval([freshBills(1)[0].Id]);
    const before = await stats();
    const a = await openPage(browser, app.url);
    await signIn(a.page, app.admin);
    await a.page.goto('/approvals');
    await row(a.page, target.id).waitFor();
    await a.page
      .getByTestId('stat-pending-value')
      .filter({ hasText: String(before.pending) })
      .waitFor();
    const detail = await a.context.newPage();
    await detail.goto(`/approvals/${target.id}`);
    await detail.getByTestId('detail-status').filter({ hasText: 'Pending' }).waitFor();
    // A marker that a reload would wipe.
    for (const p of [a.page, detail]) await p.evaluate(() => Object.assign(window, { __noReload: true }));

    const b = await openPage(browser, app.url);
    await signIn(b.page, moderator);
    await b.page.goto(`/approvals/${target.id}`);
    await b.page.getByRole('button', { name: 'Approve', exact: true }).click();
    await b.page.getByRole('dialog').getByRole('button', { name: 'Approve 1 bill' }).click();
    await expectToast(b.page, 'Approval approved successfully');

    const changed = Date.now();
    await row(a.page, target.id).getByTestId('status').filter({ hasText: APPROVED_ON }).waitFor();
    await a.page
      .getByTestId('stat-pending-value')
      .filter({ hasText: new RegExp(`^${before.pending - 1}$`) })
      .waitFor();
    await a.page
      .getByTestId('stat-approved-value')
      .filter({ hasText: new RegExp(`^${before.approved + 1}$`) })
      .waitFor();
    await detail.getByTestId('detail-status').filter({ hasText: APPROVED_ON }).waitFor();
    console.log(
      `live: list, figures and detail updated ${Date.now() - changed} ms after the approve answered`,
    );
    for (const p of [a.page, detail])
      expect(await p.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await a.context.close();
    await b.context.close();
  });

  it('shows the expiry job’s change live in the list, its figures and an open detail', async () => {
    const { page, context, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/approvals');
    await page.getByRole('heading', { name: 'Bill Approvals', level: 1 }).waitFor();
    const before = await stats();
    await page
      .getByTestId('stat-expired-value')
      .filter({ hasText: String(before.expired) })
      .waitFor();
    // A short configured age for this one approval (it is carried in its event).
    const config = app.started.app.config;
    const age = config.APPROVAL_EXPIRY_SECONDS;
    config.APPROVAL_EXPIRY_SECONDS = 6;
    let expiring: ApprovalJson;
    try {
      expiring = await createApproval([freshBills(1)[0].Id]);
    } finally {
      config.APPROVAL_EXPIRY_SECONDS = age;
    }
    const detail = await context.newPage();
    await detail.goto(`/approvals/${expiring.id}`);
    await detail.getByTestId('detail-status').filter({ hasText: 'Pending' }).waitFor();
    // Created elsewhere: the list shows it without a reload.
    await row(page, expiring.id).getByTestId('status').filter({ hasText: 'Pending' }).waitFor();
    for (const p of [page, detail]) await p.evaluate(() => Object.assign(window, { __noReload: true }));

    await detail.getByTestId('detail-status').filter({ hasText: 'Expired' }).waitFor({ timeout: 30_000 });
    await row(page, expiring.id).getByTestId('status').filter({ hasText: 'Expired' }).waitFor();
    await page
      .getByTestId('stat-expired-value')
      .filter({ hasText: new RegExp(`^${before.expired + 1}$`) })
      .waitFor();
    const last = detail.getByTestId('history').locator('li').last();
    await last.filter({ hasText: 'Expired' }).waitFor();
    expect(await last.textContent()).toContain('System');
    expect(await detail.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    for (const p of [page, detail])
      expect(await p.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('bulk approves and bulk rejects the selected rows with a result per row and a summary; deletes from the menu', async () => {
    const rows = [];
    for (let i = 0; i < 5; i++) rows.push(await createApproval([freshBills(1)[0].Id], 'LOW'));
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, moderator);
    await page.goto('/approvals');
    await page.getByRole('button', { name: 'Filters' }).click();
    await choose(page, 'Priority', 'Low');
    await page.getByTestId('page-summary').filter({ hasText: 'Total: 5 approvals' }).waitFor();

    const select = (id: string) =>
      row(page, id).getByRole('checkbox', { name: `Select approval ${short(id)}` });
    await select(rows[0].id).check();
    await select(rows[1].id).check();
    await page.getByRole('region', { name: 'Bulk actions' }).getByText('2 selected').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await page.getByTestId('bulk-summary').filter({ hasText: '2 approvals approved' }).waitFor();
    await expectToast(page, '2 approvals approved');
    for (const r of rows.slice(0, 2)) {
      expect(await page.getByTestId(`bulk-result-${r.id}`).textContent()).toMatch(
        /Approved|NACHA Pending|NACHA Generated/,
      );
      await row(page, r.id).getByTestId('status').filter({ hasText: APPROVED_ON }).waitFor();
      // Decided rows cannot be selected again.
      expect(await select(r.id).isDisabled()).toBe(true);
    }

    await select(rows[2].id).check();
    await select(rows[3].id).check();
    await page.getByRole('button', { name: 'Reject selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject Selected Approvals' });
    await dialog.getByLabel('Rejection Reason *').fill('Duplicate payment run');
    await dialog.getByRole('button', { name: 'Reject Selected' }).click();
    await page.getByTestId('bulk-summary').filter({ hasText: '2 approvals rejected' }).waitFor();
    for (const r of rows.slice(2, 4)) {
      expect(await page.getByTestId(`bulk-result-${r.id}`).textContent()).toContain('Rejected');
      await row(page, r.id).getByTestId('status').filter({ hasText: 'Rejected' }).waitFor();
    }
    const rejected = await apiCall<{ data: { rejectionReason: string; status: string } }>(
      app.url,
      'GET',
      `${A}/${rows[2].id}`,
      undefined,
      token,
    );
    expect(rejected.body.data).toMatchObject({
      status: 'REJECTED',
      rejectionReason: 'Duplicate payment run',
    });

    // The row menu's Delete: no confirmation, gone from the list.
    await row(page, rows[4].id)
      .getByRole('button', { name: `Actions for approval ${short(rows[4].id)}` })
      .click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await expectToast(page, 'Approval deleted successfully');
    await page.getByTestId('page-summary').filter({ hasText: 'Total: 4 approvals' }).waitFor();
    expect(await row(page, rows[4].id).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('downloads a bill’s invoice PDF; a bill without one says so; the ACH box leads to the vendor’s banking', async () => {
    const [withPdf] = freshBills(1, true);
    const [withoutPdf] = freshBills(1, false);
    const approval = await createApproval([withPdf.Id, withoutPdf.Id]);
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/approvals/${approval.id}`);
    const card = page.getByTestId(`bill-card-${withPdf.Id}`);
    await card.getByText('Invoice Available').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: `Download invoice of bill ${withPdf.Id}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${withPdf.DocNumber}.pdf`);
    const file = await download.path();
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(file!)).subarray(0, 5).toString()).toBe('%PDF-');
    await expectToast(page, 'Invoice download started');

    const other = page.getByTestId(`bill-card-${withoutPdf.Id}`);
    expect(await other.getByText('Invoice Available').count()).toBe(0);
    await other.getByRole('button', { name: `Download invoice of bill ${withoutPdf.Id}` }).click();
    await expectToast(page, 'Invoice not available');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Missing banking: the vendor is unknown to Billflow until synced, so the box says so.
    await card.getByRole('button', { name: 'Missing Banking Info' }).click();
    await expectToast(page, 'Vendor not found');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the approvals chart on the dashboard', async () => {
    const s = await stats();
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/dashboard');
    const chart = page.getByTestId('approvals-chart');
    await chart.getByRole('heading', { name: 'Approvals by Status (30 days)' }).waitFor();
    await chart
      .getByTestId('chart-total-pending')
      .filter({ hasText: `Pending: ${s.pending}` })
      .waitFor();
    expect(await chart.getByTestId('chart-total-rejected').textContent()).toBe(`Rejected: ${s.rejected}`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Live: a new approval elsewhere moves the chart without a reload.
    await createApproval([freshBills(1)[0].Id]);
    await chart
      .getByTestId('chart-total-pending')
      .filter({ hasText: `Pending: ${s.pending + 1}` })
      .waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
  it('segregation of duties as each viewer sees it: a moderator creates on /bills with the manager picker and may not approve; edit, first and second approval, export', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto(`/bills?companyId=${companyId}`);
    await page.getByRole('heading', { name: 'Approval Policy' }).waitFor();
    const creatorRule = page.getByLabel('The creator of an approval may not approve it');
    expect(await creatorRule.isChecked()).toBe(false);
    await creatorRule.check();
    await page.getByLabel('Second approver above (USD)').fill('1');
    await page.getByRole('button', { name: 'Save Policy' }).click();
    await expectToast(page, 'Approval policy saved');
    const policy = await apiCall<{ data: unknown }>(
      app.url,
      'GET',
      `/api/bill-approval/policies/${companyId}`,
      undefined,
      token,
    );
    expect(policy.body.data).toEqual({
      companyId,
      creatorMayNotApprove: true,
      secondApprovalThreshold: 1,
      assignedStaffOnly: true,
    });

    // A moderator creates on /bills and picks the manager (the managers list itself is ADMIN's).
    const bill = await billInQuickBooks({
      VendorRef: { value: realm.vendors[0].Id },
      DocNumber: `SOD-${Date.now()}`,
      Line: [{ Amount: 50, Description: 'Segregation of duties' }],
    });
    const m = await openPage(browser, app.url);
    await signIn(m.page, moderator);
    await m.page.goto(`/bills?companyId=${companyId}`);
    await m.page.getByTestId(`bill-row-${bill.Id}`).getByRole('checkbox').check();
    await choose(m.page, 'Manager', 'Dana Whitfield');
    await m.page.getByRole('button', { name: 'Create Approval' }).click();
    await expectToast(m.page, 'Approval created successfully');
    await m.page.waitForURL(/\/approvals\/[0-9a-f-]{36}$/);
    const id = m.page.url().split('/').pop()!;
    await m.page.getByText('dana@example.com').waitFor();

    // The creator is told why not before any click; the server agrees.
    expect(await m.page.getByTestId('approve-blocked').textContent()).toBe(
      'You created this approval; this company requires a different approver.',
    );
    expect(await m.page.getByRole('button', { name: 'Approve', exact: true }).isDisabled()).toBe(true);
    await m.page.getByText(/two different approvers are needed/).waitFor();
    expect(await seriousAxeViolations(m.page)).toEqual([]);

    // The admin's open detail follows the moderator's edit live.
    await page.goto(`/approvals/${id}`);
    expect(await page.getByRole('button', { name: 'Approve', exact: true }).isDisabled()).toBe(false);
    expect(await page.getByTestId('approve-blocked').count()).toBe(0);
    await m.page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = m.page.getByRole('dialog', { name: 'Edit Approval' });
    await edit.waitFor();
    await choose(m.page, 'Priority', 'Urgent');
    await edit.getByLabel('Recipients').fill('AP@client.example, cfo@client.example');
    expect(await seriousAxeViolations(m.page)).toEqual([]);
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expectToast(m.page, 'Approval updated successfully');
    // Its priority badge (the history says the change too, in the same word).
    await page.locator('[data-slot=badge]').getByText('Urgent', { exact: true }).waitFor();
    const edited = await apiCall<{ data: { priority: string; recipients: string[]; managerName: string } }>(
      app.url,
      'GET',
      `${A}/${id}`,
      undefined,
      token,
    );
    expect(edited.body.data).toMatchObject({
      priority: 'URGENT',
      managerName: 'Dana Whitfield',
      recipients: ['ap@client.example', 'cfo@client.example'],
    });

    // The moderator's list row: approve disabled, the reason as its title.
    await m.page.goto('/approvals');
    const rowApprove = row(m.page, id).getByRole('button', { name: `Approve approval ${short(id)}` });
    expect(await rowApprove.isDisabled()).toBe(true);
    expect(await rowApprove.getAttribute('title')).toBe(
      'You created this approval; this company requires a different approver.',
    );
    // A policy change made elsewhere reaches the open list without a reload: the creator rule off,
    // the row's Approve is enabled; on again, disabled with its reason.
    const setPolicy = (creatorMayNotApprove: boolean) =>
      apiCall(
        app.url,
        'PUT',
        `/api/bill-approval/policies/${companyId}`,
        { creatorMayNotApprove, secondApprovalThreshold: 1 },
        token,
      );
    const approveIn = (disabled: boolean) =>
      row(m.page, id).getByRole('button', { name: `Approve approval ${short(id)}`, disabled });
    await setPolicy(false);
    await approveIn(false).waitFor();
    await setPolicy(true);
    await approveIn(true).waitFor();
    expect(await rowApprove.getAttribute('title')).toBe(
      'You created this approval; this company requires a different approver.',
    );

    // The admin gives the first approval: still Pending; now the admin is the one told why not.
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve 1 bill' }).click();
    await expectToast(page, 'First approval recorded');
    await page
      .getByTestId('approve-blocked')
      .filter({ hasText: 'You gave the first approval; a second, different approver must approve.' })
      .waitFor();
    expect(await page.getByTestId('detail-status').textContent()).toBe('Pending');
    expect(await page.getByTestId('awaiting-second').textContent()).toMatch(
      /^First approval by .+ on .+; a second approver is needed \(amount above \$1\.00\)$/,
    );

    // Export CSV from the moderator's list with a filter: the file holds that approval only.
    await m.page.getByRole('button', { name: 'Filters' }).click();
    await m.page.getByLabel('Search').fill(id);
    await m.page.getByTestId('page-summary').filter({ hasText: 'Total: 1 approval' }).waitFor();
    const [download] = await Promise.all([
      m.page.waitForEvent('download'),
      m.page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    await expectToast(m.page, 'Download started');
    expect(download.suggestedFilename()).toBe('approvals-export.csv');
    const csv = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(id);
    expect(csv[1]).toContain('URGENT');

    // A second, different moderator completes it; the admin's page follows.
    const second = await createUser(app.url, app.admin, 'MODERATOR', {
      firstName: 'Sam',
      lastName: 'Second',
    });
    // Staff work on the companies they are assigned to: the second moderator becomes its accountant.
    await apiCall(
      app.url,
      'PUT',
      `/api/company/companies/${companyId}/assignments`,
      { accountantId: second.id },
      token,
    );
    const s2 = await openPage(browser, app.url);
    await signIn(s2.page, second);
    await s2.page.goto(`/approvals/${id}`);
    await s2.page.getByTestId('awaiting-second').waitFor();
    expect(await s2.page.getByTestId('approve-blocked').count()).toBe(0);
    await s2.page.getByRole('button', { name: 'Approve', exact: true }).click();
    await s2.page.getByRole('dialog').getByRole('button', { name: 'Approve 1 bill' }).click();
    await expectToast(s2.page, 'Approval approved successfully');
    await page.getByTestId('detail-status').filter({ hasText: APPROVED_ON }).waitFor();

    // Back to the default, off.
    await apiCall(
      app.url,
      'PUT',
      `/api/bill-approval/policies/${companyId}`,
      { creatorMayNotApprove: false, secondApprovalThreshold: null },
      token,
    );
    expect([...errors, ...m.errors, ...s2.errors]).toEqual([]);
    for (const c of [page.context(), m.context, s2.context]) await c.close();
    // Three browsers and a whole lifecycle: more than the file's default on a loaded 2-core machine.
  }, 180_000);
});
