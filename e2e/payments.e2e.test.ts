// The payment screens in real Chromium against a real gateway: the public
// /direct-action-result without sign-in ('Processing Action', then each outcome's texts, as the
// server verifies its signed reference; a query without one shows the neutral text), the
// in-layout result with its breadcrumbs and buttons, and /approvals/{id}/confirm: its parameter
// errors, a forged token refused by the real server (Access Denied), and — with the token check and
// the payment-completed call answered by the test through the browser's request routing — the
// action step, the success toast and the 2 s redirect, and the other failure screens. Each page at
// 375 px wide without sideways scrolling, and axe on each. The full link flow (approve → file →
// e-mail → confirm → result → live detail) lands with the server's payment parts.
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResultOutcome, signResultRef } from '../services/approvals/payments/result-ref.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  type Credentials,
  createUser,
  ensureWebBuild,
  expectToast,
  holdTimers,
  launchBrowser,
  openPage,
  pathOf,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

let app: TestApp;
let browser: Browser;
let viewer: Credentials;
const ID = '0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';
const PHONE = { width: 375, height: 812 };

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  viewer = await createUser(app.url, app.admin, 'USER', { firstName: 'Uma', lastName: 'User' });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** How far the page is wider than the window: > 0 when it scrolls sideways. */
function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

const verification = (status: string, info: { canMarkAsPaid: boolean; isAlreadyPaid: boolean }) => ({
  success: true,
  data: {
    approval: {
      id: ID,
      status,
      companyName: 'Juniper Office Supply',
      totalAmount: 300,
      manager: {
        firstName: 'Dana',
        lastName: 'Whitfield',
        title: 'AP Lead',
        email: 'dana@example.com',
        phone: '555-0100',
      },
      createdAt: '2026-11-20T10:00:00.000Z',
      approvalDate: '2026-11-21T10:00:00.000Z',
      nachaGeneratedAt: '2026-11-21T10:01:00.000Z',
      nachaBatchNumber: 4,
      billsParsed: [
        { Id: '11', DocNumber: 'D-11', TotalAmt: 100, VendorRef: { value: '5', name: 'Acme Paper' } },
        { Id: '12', DocNumber: 'D-12', TotalAmt: 200, VendorRef: { value: '6', name: 'Birch Ink' } },
      ],
    },
    user: { name: 'Uma User', email: viewer.email, role: 'USER' },
    statusInfo: { ...info, canMarkAsUploaded: false, isAlreadyUploaded: true },
  },
});

/** A result reference as the confirmation's redirect carries it, signed by this gateway's secret. */
const signed = (
  action: 'bank-uploaded' | 'payment-completed',
  outcome: ResultOutcome,
  error: string | null = null,
) => signResultRef(app.started.app.config.JWT_SECRET, { approvalId: ID, action, outcome, error });

const fulfil = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe('public /direct-action-result', () => {
  type Signed = Parameters<typeof signed> | null;
  it.each<[string, Signed, string, string]>([
    [
      `?action=bank-upload&approvalId=${ID}&success=true`,
      ['bank-uploaded', 'success'],
      'Successfully uploaded to bank',
      'All stakeholders have been notified.',
    ],
    [
      `?action=payment-completed&approvalId=${ID}&success=true`,
      ['payment-completed', 'success'],
      'Successfully marked as payment completed',
      ID,
    ],
    [
      `?action=bank-upload&approvalId=${ID}&success=false&error=Typed%20words`,
      ['bank-uploaded', 'failure', 'This link has expired'],
      'Failed to upload to bank',
      'This link has expired',
    ],
    [
      `?action=payment-completed&approvalId=${ID}&success=false&error=Used`,
      ['payment-completed', 'failure', 'This link has already been used'],
      'Failed to mark as payment completed',
      'This link has already been used',
    ],
    [
      `?action=bank-upload&approvalId=${ID}&noAction=true`,
      ['bank-uploaded', 'no-action'],
      'No Action Needed',
      'This bill has already been uploaded to the bank',
    ],
    [
      `?action=payment-completed&approvalId=${ID}&noAction=true`,
      ['payment-completed', 'no-action'],
      'No Action Needed',
      'This bill has already been marked as paid',
    ],
    [
      `?action=bank-upload&approvalId=${ID}&success=false&error=Call%20555-0199`,
      null,
      'Outcome not confirmed',
      'We could not confirm the outcome of this action; check the approval in Billflow.',
    ],
    ['?success=true', null, 'Invalid direct action result', 'Missing required parameters from redirect'],
  ])('%s (signed: %j) → %s, without sign-in, on a phone', async (query, sign, title, text) => {
    const { page, context, errors } = await openPage(browser, app.url, { viewport: PHONE });
    try {
      const ref = sign ? `&ref=${encodeURIComponent(await signed(...sign))}` : '';
      // 'Processing Action' first: it shows for 400 ms, less than a busy machine may take to look,
      // so the page's timers stand still until the test has seen it.
      await holdTimers(page);
      await page.goto(`/direct-action-result${query}${ref}`);
      await page.getByRole('heading', { name: 'Processing Action' }).waitFor();
      await page.clock.resume();
      await page.getByRole('heading', { name: title }).waitFor();
      expect(await page.getByText(text, { exact: true }).count()).toBeGreaterThan(0);
      // The query's own words are never stated.
      expect(await page.getByText(/Typed words|555-0199|^Used$/).count()).toBe(0);
      expect(pathOf(page)).toBe('/direct-action-result');
      if (title.startsWith('Successfully'))
        await page.getByText('This action was completed via email link. No login was required.').waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('in-layout /approvals/direct-action-result', () => {
  it('shows the result inside the shell with breadcrumbs, View Approval Details and View All Approvals', async () => {
    const { page, context } = await openPage(browser, app.url);
    try {
      await signIn(page, viewer);
      const ref = encodeURIComponent(await signed('payment-completed', 'success'));
      await page.goto(
        `/approvals/direct-action-result?action=payment-completed&approvalId=${ID}&success=true&ref=${ref}`,
      );
      await page.getByRole('heading', { name: 'Successfully marked as payment completed' }).waitFor();
      const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
      await crumbs.getByText('Action Result').waitFor();
      expect(await page.getByRole('link', { name: 'View Approval Details' }).getAttribute('href')).toBe(
        `/approvals/${ID}`,
      );
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'View All Approvals' }).click();
      await page.waitForURL((u) => u.pathname === '/approvals');
    } finally {
      await context.close();
    }
  });
});

describe('/approvals/{id}/confirm', () => {
  it('says which parameter is missing or wrong', async () => {
    const { page, context } = await openPage(browser, app.url);
    try {
      await signIn(page, viewer);
      await page.goto(`/approvals/${ID}/confirm?action=payment-completed`);
      await page.getByRole('heading', { name: 'Missing required parameters' }).waitFor();
      await page.goto(`/approvals/${ID}/confirm?token=abc&action=pay-twice`);
      await page.getByRole('heading', { name: 'Invalid action type' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('a forged token is refused by the server: Access Denied with debug info and Login', async () => {
    const { page, context } = await openPage(browser, app.url, { viewport: PHONE });
    try {
      await signIn(page, viewer);
      await page.goto(`/approvals/${ID}/confirm?token=forged.token.value&action=payment-completed`);
      // The token check is the gateway's real one; under a parallel run it may take a while.
      await page.getByRole('heading', { name: 'Access Denied' }).waitFor({ timeout: 20_000 });
      await page.getByText('Unable to verify your access to this approval.').waitFor();
      await page.getByText('Debug info').click();
      await page.getByTestId('debug-info').getByText(`Approval: ${ID}`).waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Login' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('with a verified token: Logged in as, the details, the one payment-completed step, disabled while it runs; success → toast, All Done!, the approval after 2 s', async () => {
    const { page, context, errors } = await openPage(browser, app.url, { viewport: PHONE });
    const sent: { method: string; url: string; auth: string | null; body: string | null }[] = [];
    // The payment-completed request is held until the test has seen the step running.
    let postArrived = () => {};
    const posted = new Promise<void>((resolve) => {
      postArrived = resolve;
    });
    let answerPost = () => {};
    const answered = new Promise<void>((resolve) => {
      answerPost = resolve;
    });
    try {
      await signIn(page, viewer);
      await page.route(`**/api/bill-approval/approvals/${ID}/**`, async (route) => {
        const req = route.request();
        sent.push({
          method: req.method(),
          url: req.url(),
          auth: req.headers().authorization ?? null,
          body: req.postData(),
        });
        if (req.url().includes('/verify-token'))
          return fulfil(
            route,
            200,
            verification('BANK_UPLOADED', { canMarkAsPaid: true, isAlreadyPaid: false }),
          );
        if (req.url().includes('/payment-completed') && req.method() === 'POST') {
          postArrived();
          await answered;
          return fulfil(route, 200, { success: true, message: 'Payment marked as completed' });
        }
        return route.fallback();
      });
      await page.goto(`/approvals/${ID}/confirm?token=link-token&action=bank-uploaded`);
      await page.getByRole('heading', { name: 'Logged in as' }).waitFor();
      await page.getByTestId('logged-in-as').getByText(viewer.email).waitFor();
      await page.getByText('ACTION REQUIRED').waitFor();
      await page.getByText('STEP 2').waitFor();
      await page.getByText('CLICK TO CONFIRM: Payment Completed').waitFor();
      expect(await page.getByRole('button', { name: /upload/i }).count()).toBe(0);
      expect(await page.getByTestId('confirm-bills').getByRole('listitem').count()).toBe(2);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(sent[0].url).toContain('/verify-token?token=link-token');
      expect(sent[0].auth).toMatch(/^Bearer /);

      // 'All Done!' shows for the 2 s before the redirect, less than a busy machine may take to look:
      // the page's timers stand still from the press until the test has seen it.
      await holdTimers(page);
      const button = page.getByRole('button', { name: 'Mark as Payment Completed' });
      await button.click();
      await posted;
      await expect.poll(() => button.isDisabled()).toBe(true);
      answerPost();
      await expectToast(page, 'Status Updated Successfully');
      await page.getByText('All Done!').waitFor();
      const post = sent.find((s) => s.method === 'POST');
      expect(post?.url).toContain('/payment-completed?token=link-token');
      expect(post?.body ?? '').toBe('');
      expect(pathOf(page)).toBe(`/approvals/${ID}/confirm`);
      const resumed = Date.now();
      await page.clock.resume();
      await page.waitForURL((u) => u.pathname === `/approvals/${ID}`);
      expect(Date.now() - resumed).toBeGreaterThanOrEqual(1900);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([
    [
      { code: 'VALIDATION_FAILED', details: 'Cannot update approval with status REJECTED' },
      'Status Update Not Available',
      'This approval is no longer available for status updates.',
    ],
    [
      { code: 'CONFLICT', details: 'Cannot update approval with status PAYMENT_COMPLETED' },
      'Payment Already Completed',
      'Payment Processing Complete',
    ],
  ])('a token check refused with %j → %s', async (error, title, text) => {
    const { page, context } = await openPage(browser, app.url);
    try {
      await signIn(page, viewer);
      await page.route(`**/api/bill-approval/approvals/${ID}/verify-token**`, (route) =>
        fulfil(route, 400, { success: false, message: error.details, error }),
      );
      await page.goto(`/approvals/${ID}/confirm?token=t&action=payment-completed`);
      await page.getByRole('heading', { name: title }).waitFor();
      await page.getByText(text, { exact: true }).waitFor();
      await page.getByRole('link', { name: 'View Approval' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('already paid: the button reads Payment Already Completed, disabled, with All Done!', async () => {
    const { page, context } = await openPage(browser, app.url);
    try {
      await signIn(page, viewer);
      await page.route(`**/api/bill-approval/approvals/${ID}/verify-token**`, (route) =>
        fulfil(route, 200, verification('PAYMENT_COMPLETED', { canMarkAsPaid: false, isAlreadyPaid: true })),
      );
      await page.goto(`/approvals/${ID}/confirm?token=t&action=payment-completed`);
      const button = page.getByRole('button', { name: 'Payment Already Completed' });
      await button.waitFor();
      expect(await button.isDisabled()).toBe(true);
      await page.getByText('All Done!').waitFor();
    } finally {
      await context.close();
    }
  });
});
