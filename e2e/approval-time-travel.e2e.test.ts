// Time travel on the approval detail in real Chromium against a real gateway: a
// MODERATOR opens an approved approval, scrubs back by keyboard to the step before it was approved and
// sees it PENDING under the "Viewing as of … · step n of m" banner, with no action offered; "Back to
// now" shows it as it is. On a phone the scrubber fits without sideways scrolling. "Export audit
// bundle" downloads a bundle the standalone verifier proves, and the history then shows the export by
// the moderator. The approval's events are appended as the product's own (making it through the API
// would need QuickBooks).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../schema/approvals/events.js';
import { approvalStreamId } from '../services/approvals/approval-decider.js';
import { anchorFile } from '../services/eventstore/anchor-publish.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { approvalCreated, billSnapshot } from '../test/support/bills.js';
import { api } from '../test/support/http.js';
import {
  apiLogin,
  type Credentials,
  createUser,
  ensureWebBuild,
  launchBrowser,
  MOBILE,
  openPage,
  signIn,
} from './support/browser.js';

const A = '/api/bill-approval/approvals';
let app: TestApp;
let browser: Browser;
let moderator: Credentials;
const id = randomUUID();

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  const login = await apiLogin(app.url, app.admin);
  const token = login.tokens.accessToken;
  const adminId = login.user.id;
  moderator = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Mona', lastName: 'Moss' });
  const c = await api(app.url, 'POST', '/api/company/companies', { body: { name: 'Scrub Bakery' }, token });
  const companyId = c.body.data.id as number;
  await api(app.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
    token,
  });
  const at = (m: number) => new Date(Date.now() - 3_600_000 + m * 60_000).toISOString();
  const events: ApprovalEvent[] = [
    approvalCreated({
      approvalId: id,
      companyId,
      createdBy: adminId,
      bills: [billSnapshot('501', 1250, { VendorRef: { value: '77', name: 'Acme Paper' } })],
      expiresAt: at(60 * 24 * 7),
      at: at(1),
    }),
    { type: 'ApprovalUpdated', data: { approvalId: id, companyId, priority: 'LOW', at: at(2) } },
    {
      type: 'ApprovalApproved',
      data: {
        approvalId: id,
        companyId,
        approvedBillIds: ['501'],
        byUserId: adminId,
        firstApprovedBy: null,
        at: at(3),
      },
    },
  ];
  for (const e of events)
    await app.started.app.store.append(
      approvalStreamId(id),
      [{ id: randomUUID(), type: e.type, data: e.data, metadata: { userId: String(adminId) } }],
      'any',
    );
  // The read model has the approval approved: waited for however busy the machine, and said when
  // it does not come (not assumed after a while).
  const readBy = Date.now() + 60_000;
  for (;;) {
    const r = await api(app.url, 'GET', `${A}/${id}`, { token });
    if (r.status === 200 && r.body.data.status !== 'PENDING') break;
    if (Date.now() > readBy) throw new Error('the approval was not read as approved within 60 s');
    await new Promise((res) => setTimeout(res, 50));
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('time travel on the approval detail', () => {
  it('scrubs back to before the approval (PENDING), then Back to now', async () => {
    const { context, page, errors } = await openPage(browser, app.url);
    try {
      await signIn(page, moderator);
      await page.goto(`/approvals/${id}`);
      const status = page.getByTestId('detail-status');
      await expect.poll(() => status.textContent()).not.toMatch(/^pending$/i);
      await page.getByRole('button', { name: 'Time travel' }).click();
      const banner = page.getByTestId('time-travel-banner');
      await expect.poll(() => banner.textContent()).toMatch(/^Viewing as of .+ · step (\d+) of \1$/);

      // By keyboard: the slider to its first step, then one to the right (the priority change).
      const slider = page.getByRole('slider', { name: 'Step of the approval’s history' });
      await slider.focus();
      await page.keyboard.press('Home');
      await expect.poll(() => banner.textContent()).toMatch(/ · step 1 of \d+$/);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => banner.textContent()).toMatch(/ · step 2 of \d+$/);
      await expect.poll(() => status.textContent()).toMatch(/^pending$/i);
      expect(await page.getByTestId('time-travel-step').textContent()).toContain('After: Updated');
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await page.getByTestId('approved-bills-list').count()).toBe(0);

      await page.getByRole('button', { name: 'Back to now' }).click();
      expect(await page.getByTestId('time-travel').count()).toBe(0);
      await expect.poll(() => status.textContent()).not.toMatch(/^pending$/i);
      expect(await page.getByTestId('approved-bills-list').textContent()).toContain('INV-501');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a phone without sideways scrolling', async () => {
    const { context, page, errors } = await openPage(browser, app.url, { viewport: MOBILE });
    try {
      await signIn(page, moderator);
      await page.goto(`/approvals/${id}`);
      await page.getByRole('button', { name: 'Time travel' }).click();
      await expect.poll(() => page.getByTestId('time-travel-banner').textContent()).toMatch(/^Viewing as of/);
      await page.getByRole('button', { name: 'Previous' }).click();
      await expect
        .poll(() => page.getByTestId('time-travel-banner').textContent())
        .toMatch(/step \d+ of \d+$/);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      const box = await page.getByTestId('time-travel').boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(MOBILE.width);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('exports the audit bundle: the download verifies, and the history shows the export', async () => {
    const { context, page, errors } = await openPage(browser, app.url);
    try {
      await signIn(page, moderator);
      await page.goto(`/approvals/${id}`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export audit bundle' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`audit-${id}.json`);
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'e2e-audit-')), download.suggestedFilename());
      await download.saveAs(file);
      const verifier = path.resolve(import.meta.dirname, '../tools/audit-verifier.mjs');
      const anchors = await anchorFile(app.started.app.pool);
      const { stdout } = await promisify(execFile)(process.execPath, [verifier, file, anchors]);
      expect(stdout).toMatch(/^OK: /m);

      const step = page.getByTestId('history-step').filter({ hasText: 'Audit bundle exported' });
      await expect.poll(() => step.count()).toBe(1);
      expect(await step.getByTestId('history-actor').textContent()).toBe('Mona Moss');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
