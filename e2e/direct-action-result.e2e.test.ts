// The public /direct-action-result in real Chromium against a real gateway states only what the server
// checked: an e-mail link's button confirms the bank upload and lands on the page with the spec's query
// and the signed outcome (`ref`), which the page has the server verify before it says 'Successfully
// uploaded to bank'; pressed again, 'No Action Needed', verified too. The same query typed by hand
// (success=true, or success=false with error words), or the real reference with another approval's
// id, shows only the neutral text and none of the query's words. On a phone, nothing scrolls sideways.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalCommand } from '../services/approvals/approval-decider.js';
import { approvalDecider, approvalStreamId } from '../services/approvals/approval-decider.js';
import { signLinkToken } from '../services/approvals/payments/link-token.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { billSnapshot } from '../test/support/bills.js';
import { api } from '../test/support/http.js';
import {
  apiLogin,
  ensureWebBuild,
  holdTimers,
  launchBrowser,
  openPage,
  seriousAxeViolations,
} from './support/browser.js';

const PHONE = { width: 375, height: 812 };
const A = '/api/bill-approval/approvals';
const UNCONFIRMED = 'We could not confirm the outcome of this action; check the approval in Billflow.';
let app: TestApp;
let browser: Browser;
let adminId = 0;
let companyId = 0;
const approvalId = randomUUID();
const linkId = randomUUID();
const now = () => new Date().toISOString();

/** Several commands as one append: no process manager sees a state between them. */
const batch = {
  ...approvalDecider,
  decide(commands: ApprovalCommand[], state: ReturnType<typeof approvalDecider.initialState>) {
    const out = [];
    for (const c of commands) {
      const events = approvalDecider.decide(c, state);
      for (const e of events) state = approvalDecider.evolve(state, e);
      out.push(...events);
    }
    return out;
  },
};

/** How far the page is wider than the window: > 0 when it scrolls sideways. */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  const login = await apiLogin(app.url, app.admin);
  adminId = login.user.id;
  const c = await api(app.url, 'POST', '/api/company/companies', {
    body: { name: 'Result Page Co' },
    token: login.tokens.accessToken,
  });
  companyId = c.body.data.id;
  // A NACHA_GENERATED approval with a bank-upload link to its recipient, in one append.
  await app.started.app.commands.handle(
    batch,
    approvalStreamId(approvalId),
    [
      {
        type: 'CreateApproval',
        approvalId,
        companyId,
        priority: 'HIGH',
        managerId: null,
        byUserId: adminId,
        bills: [billSnapshot('r1', 410.5)],
        vendorContacts: [],
        recipients: ['ap@result-page.test'],
        confirmedDuplicates: [],
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        now: now(),
      },
      {
        type: 'ApproveApproval',
        approvedBillIds: ['r1'],
        byUserId: adminId,
        policy: { creatorMayNotApprove: false, secondApprovalThreshold: null },
        managerEmail: null,
        // No vendor of these bills is synced: none has banking to record.
        banking: [],
        now: now(),
      },
      { type: 'RequestNacha', reason: 'approved', byUserId: null, now: now() },
      {
        type: 'RecordNachaGenerated',
        version: 1,
        file: {
          fileId: `file-${approvalId}`,
          fileName: 'ACH_RESULT_PAGE_v1.txt',
          batchNumber: 1,
          fileIdModifier: 'A',
          effectiveDate: '2026-07-06',
          entryCount: 1,
          totalCreditCents: 41_050,
          totalDebitCents: 0,
          balanced: false,
          vendors: [],
          skippedBills: [],
        },
        now: now(),
      },
      {
        type: 'IssueLink',
        linkId,
        action: 'bank-uploaded',
        recipient: 'ap@result-page.test',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        now: now(),
      },
    ],
    { userId: String(adminId) },
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('public /direct-action-result', () => {
  it('says what the server signed after a press, and only the neutral text for a query typed by hand', async () => {
    const token = await signLinkToken(app.started.app.config.JWT_SECRET, {
      linkId,
      approvalId,
      action: 'bank-uploaded',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const link = `${A}/${approvalId}/confirm-link?${new URLSearchParams({ action: 'bank-uploaded', token })}`;
    const { page, context, errors } = await openPage(browser, app.url, { viewport: PHONE });
    try {
      // The e-mail's link: its page, its button, the result page with the signed outcome.
      await page.goto(link);
      await page.getByRole('button').first().click();
      await page.waitForURL(/\/direct-action-result\?/);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('success')).toBe('true');
      expect(landed.searchParams.get('ref')).toBeTruthy();
      await page.getByRole('heading', { name: 'Successfully uploaded to bank' }).waitFor();
      await page.getByText('All stakeholders have been notified.').waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The link again: its page says the step is done; a press sent anyway lands on 'No Action Needed'.
      await page.goto(link);
      await page.getByRole('heading', { name: 'No Action Needed' }).waitFor();
      await page.evaluate((to) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = to;
        document.body.append(form);
        form.submit();
      }, link);
      await page.waitForURL(/noAction=true/);
      await page.getByRole('heading', { name: 'No Action Needed' }).waitFor();

      // The real reference under another approval's id: not this approval's outcome.
      const moved = new URL(landed);
      moved.searchParams.set('approvalId', randomUUID());
      const typed = [
        `${moved.pathname}${moved.search}`,
        `/direct-action-result?action=bank-upload&approvalId=${approvalId}&success=true`,
        `/direct-action-result?action=payment-completed&approvalId=${approvalId}&success=true&noAction=true`,
        `/direct-action-result?action=bank-upload&approvalId=${approvalId}&success=false&error=${encodeURIComponent(
          'Your account is locked: call 555-0199 now',
        )}`,
        `/direct-action-result?action=bank-upload&approvalId=${approvalId}&success=true&ref=forged.ref.value`,
      ];
      for (const path of typed) {
        // 'Processing Action' shows for 400 ms: the page's timers stand still until it is seen.
        await holdTimers(page);
        await page.goto(path);
        await page.getByRole('heading', { name: 'Processing Action' }).waitFor();
        await page.clock.resume();
        await page.getByRole('heading', { name: 'Outcome not confirmed' }).waitFor();
        expect(await page.getByTestId('direct-action-unconfirmed').textContent(), path).toBe(UNCONFIRMED);
        const text = (await page.locator('body').textContent()) ?? '';
        expect(text, path).not.toMatch(
          /Successfully|Failed to|No Action Needed|stakeholders|555-0199|locked/,
        );
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      }
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
