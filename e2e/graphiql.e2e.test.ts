// GraphiQL and the REST reference in real Chromium with every other host blocked:
// both render from this server's own files under their Content-Security-Policy; GraphiQL runs a query.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { launchBrowser, openPage } from './support/browser.js';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('renders the GraphiQL editor and runs a query with no other host reachable', async () => {
  const { context, page, errors } = await openPage(browser, app.url);
  const origin = new URL(app.url).origin;
  const offsite: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) return route.continue();
    offsite.push(url.href);
    return route.abort('internetdisconnected');
  });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  try {
    await page.goto('/graphql', { waitUntil: 'domcontentloaded', timeout: 30_000 });
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });

    // The editor is live: replace its text and run it.
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ __typename }');
    await page.locator('.graphiql-execute-button').click();
    await expect
      // Monaco draws spaces as no-break spaces.
      .poll(
        async () => ((await page.locator('.graphiql-response').textContent()) ?? '').replace(/\s+/g, ' '),
        {
          timeout: 15_000,
        },
      )
      .toContain('"__typename": "Query"');

    expect(offsite).toEqual([]);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}, 90_000);

it('shows the REST reference at /api/docs with no other host reachable', async () => {
  const { context, page, errors } = await openPage(browser, app.url);
  const origin = new URL(app.url).origin;
  const offsite: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) return route.continue();
    offsite.push(url.href);
    return route.abort('internetdisconnected');
  });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  try {
    await page.goto('/api/docs/');
    // One block per operation, read from /api/docs/json.
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
    await expect(
      page.locator('.opblock-summary-path').filter({ hasText: '/api/auth/login' }).count(),
    ).resolves.toBe(1);
    expect(offsite).toEqual([]);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
