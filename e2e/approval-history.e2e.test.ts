// The detail page's Activity History in real Chromium, on a phone (375 × 812): an approval approved,
// its file asked for and failed by the payments job, regenerated, and confirmed through an e-mail
// link, with its company's policy on record. Each step shows who (badges for the system job and the
// link's recipient), when, what changed in words (statuses as their badges say them, recipients
// counted) and the reason, and no raw codes or log positions (those stay on the step as data);
// nothing scrolls sideways and axe finds nothing serious.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalCommand } from '../services/approvals/approval-decider.js';
import { approvalDecider, approvalStreamId } from '../services/approvals/approval-decider.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api } from '../test/support/http.js';
import {
  apiLogin,
  ensureWebBuild,
  launchBrowser,
  openPage,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

const PHONE = { width: 375, height: 812 };
let app: TestApp;
let browser: Browser;
let adminId = 0;
const approvalId = randomUUID();
const now = () => new Date().toISOString();

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
const run = (commands: ApprovalCommand[], userId: string | null = String(adminId)) =>
  app.started.app.commands.handle(batch, approvalStreamId(approvalId), commands, { userId });
const types = async () =>
  (await app.started.app.store.readStream(approvalStreamId(approvalId))).events.map((e) => e.type);

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  const login = await apiLogin(app.url, app.admin);
  adminId = login.user.id;
  const token = login.tokens.accessToken;
  const c = await api(app.url, 'POST', '/api/company/companies', { body: { name: 'Ledger Lane' }, token });
  const companyId = c.body.data.id;
  await api(app.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
    token,
  });
  await run([
    {
      type: 'CreateApproval',
      approvalId,
      companyId,
      priority: 'HIGH',
      managerId: null,
      byUserId: adminId,
      bills: [
        {
          Id: 'e2e-h1',
          DocNumber: 'INV-E2E-H1',
          TxnDate: null,
          DueDate: null,
          TotalAmt: 980.25,
          Balance: 980.25,
          CurrencyRef: 'USD',
          VendorRef: { value: '77', name: 'A Vendor With A Rather Long Trading Name Incorporated' },
          VendorInfo: { CompanyName: null },
          VendorAddr: null,
          Line: [],
          AttachableId: null,
          InvoiceFileName: null,
        },
      ],
      vendorContacts: [],
      recipients: ['pat.payer@ledger-lane.test'],
      confirmedDuplicates: [],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: now(),
    },
    {
      type: 'ApproveApproval',
      approvedBillIds: ['e2e-h1'],
      byUserId: adminId,
      managerEmail: null,
      policy: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      // No vendor of these bills is synced: none has banking to record.
      banking: [],
      now: now(),
    },
  ]);
  // The payments job asks for the file and fails it (no NACHA settings).
  // Waited for, however busy the machine, and said when it does not come (not assumed after a while).
  const failedBy = Date.now() + 60_000;
  while (!(await types()).includes('NachaGenerationFailed')) {
    if (Date.now() > failedBy) throw new Error('the payments job did not fail the NACHA file within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  await run([
    { type: 'RequestNacha', reason: 'regenerate', byUserId: adminId, now: now() },
    {
      type: 'RecordNachaGenerated',
      version: 2,
      file: {
        fileId: 'file-e2e-history',
        fileName: 'ACH_E2E_HISTORY_v2.txt',
        batchNumber: 2,
        fileIdModifier: 'A',
        effectiveDate: '2025-06-03',
        entryCount: 1,
        totalCreditCents: 98_025,
        totalDebitCents: 0,
        balanced: false,
        vendors: [],
        skippedBills: [],
      },
      now: now(),
    },
    {
      type: 'IssueLink',
      linkId: 'link-e2e-history',
      action: 'bank-uploaded',
      recipient: 'pat.payer@ledger-lane.test',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: now(),
    },
  ]);
  await run(
    [
      {
        type: 'MarkBankUploaded',
        byUserId: null,
        link: { linkId: 'link-e2e-history', recipient: 'pat.payer@ledger-lane.test', manager: null },
        now: now(),
      },
    ],
    null,
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('Activity History', () => {
  it('on a phone: who, when, changes in words and reasons, without sideways scrolling', async () => {
    const { page, errors, context } = await openPage(browser, app.url, { viewport: PHONE });
    await signIn(page, app.admin);
    await page.goto(`/approvals/${approvalId}`);
    const history = page.getByTestId('history');
    await history.getByText('Bank upload confirmed').waitFor();
    const steps = history.getByTestId('history-step');
    const texts = await steps.allTextContents();
    expect(texts[0]).toContain('Approval policy in force');
    expect(texts[0]).toContain('Company policy');
    const failed = steps.filter({ hasText: 'NACHA generation failed' });
    expect(await failed.textContent()).toContain('System (payments job)');
    expect(await failed.getByTestId('history-reason').textContent()).toMatch(/NACHA settings/);
    const confirmed = steps.filter({ hasText: 'Bank upload confirmed' });
    expect(await confirmed.textContent()).toContain('E-mail link');
    expect(await confirmed.textContent()).toContain('Status:NACHA Generated→changed toBank Uploaded');
    const created = steps.filter({
      has: page.getByTestId('history-action').getByText('Created', { exact: true }),
    });
    expect(await created.textContent()).toContain('Recipients:none→changed to1 recipient');
    expect(await created.textContent()).toContain('Status:none→changed toPending');
    // No codes a person would have to decode, no log positions; those stay on each step as data.
    const codes = /\b(PENDING|APPROVED|NACHA_PENDING|NACHA_GENERATED|BANK_UPLOADED|REQUESTED|FAILED|HIGH)\b/;
    for (const text of texts) expect(text).not.toMatch(codes);
    for (const text of texts) expect(text).not.toMatch(/#\d+:\d+|\d{8,}/);
    for (const position of await steps.evaluateAll((lis) =>
      lis.map((li) => li.getAttribute('data-position')),
    ))
      expect(position).toMatch(/^\d+:\d+$/);
    // Nothing wider than the phone: the page does not scroll sideways, no step spills out.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    const right = await history.evaluate((ol) =>
      Math.max(...[...ol.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right)),
    );
    expect(right).toBeLessThanOrEqual(PHONE.width);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
