// The bank files page in real Chromium against a real gateway, Postgres and Redis: an ADMIN reads a
// real bank's return file in the UI (its entries are none of Billflow's, so both are parked for a
// person), reads the outcome in plain words, sees the file in the list and opens it to its parked
// entries; a file that is not an ACH file is refused with the server's words. A MODERATOR has the nav
// entry and the list, but no upload.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  pathOf,
  ROOT,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

const RETURN_FILE = path.join(ROOT, 'test/fixtures/ach/returns/valid/return-WEB.ach');

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('the bank files page', () => {
  it('an ADMIN reads a bank file in the UI and sees the result, then a refusal', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Bank files' })
      .click();
    await page.getByRole('heading', { name: 'Bank files', level: 1 }).waitFor();
    expect(pathOf(page)).toBe('/bank-files');
    await expect.poll(() => page.title()).toBe('Bank files · Billflow');
    await page.getByText('No bank files read yet').waitFor();

    await page.getByRole('button', { name: 'Read a bank file' }).click();
    await page.getByLabel('Bank file', { exact: true }).setInputFiles({
      name: 'return-WEB.ach',
      mimeType: 'text/plain',
      buffer: readFileSync(RETURN_FILE),
    });
    await page.getByRole('button', { name: 'Read file' }).click();
    const outcome = page.getByTestId('bank-file-outcome');
    await outcome.waitFor();
    expect(await outcome.textContent()).toBe(
      '2 returns, 0 notifications of change: 0 applied, 0 already on record, 2 parked for a person',
    );
    const parked = await page.getByTestId('bank-file-outcome-parked').getByRole('listitem').allTextContents();
    expect(parked).toHaveLength(2);
    for (const line of parked)
      expect(line).toMatch(
        /^line \d+ · R0[13] · \$[\d,]+\.\d\d · no entry of a Billflow file has this trace number$/,
      );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();

    // The list was read again: the file is there, applied, with its two parked entries.
    const row = page.getByTestId('bank-file-return-WEB.ach');
    await row.waitFor();
    await expect.poll(() => row.textContent()).toMatch(/Uploaded.*Applied/);
    await row.getByRole('button', { name: 'return-WEB.ach' }).click();
    const details = page.getByTestId('bank-file-parked-return-WEB.ach').getByRole('listitem');
    await expect.poll(() => details.count()).toBe(2);

    await page.getByRole('button', { name: 'Read a bank file' }).click();
    await page.getByLabel('Bank file', { exact: true }).setInputFiles({
      name: 'notes.ach',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello\n'),
    });
    await page.getByRole('button', { name: 'Read file' }).click();
    const refusal = page.getByTestId('bank-file-refusal');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^The file is not a valid ACH return file: /);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a MODERATOR sees the list but is not offered the upload', async () => {
    const moderator = await createUser(app.url, app.admin, 'MODERATOR');
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, moderator);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Bank files' })
      .click();
    await page.getByRole('heading', { name: 'Bank files', level: 1 }).waitFor();
    await page.getByRole('group', { name: 'Files read' }).waitFor();
    await page.getByRole('group', { name: 'Needs attention' }).getByText('None open').waitFor();
    expect(await page.getByRole('button', { name: 'Read a bank file' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
