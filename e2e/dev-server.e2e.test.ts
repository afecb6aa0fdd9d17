// The Vite dev server proxies /api and /graphql (WebSockets too) to the gateway: sign in and get a
// live update over the subscription socket through it (React StrictMode on, as in development).
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { apiCall, apiLogin, createUser, launchBrowser, openPage, ROOT, signIn } from './support/browser.js';

let app: TestApp;
let browser: Browser;
let vite: ViteDevServer;
let devUrl: string;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  process.env.BILLFLOW_GATEWAY_URL = app.url;
  vite = await createServer({
    configFile: path.join(ROOT, 'web', 'vite.config.ts'),
    server: { port: 0, host: '127.0.0.1', strictPort: false },
    logLevel: 'error',
  });
  await vite.listen();
  devUrl = vite.resolvedUrls?.local[0] ?? '';
}, 240_000);

afterAll(async () => {
  await vite?.close();
  await browser?.close();
  await app?.stop();
});

describe('dev server', () => {
  it('proxies the API and the subscription socket to the gateway', async () => {
    expect(devUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const person = await createUser(app.url, app.admin, 'ADMIN', { firstName: 'Dev', lastName: 'Proxy' });
    const { page, errors } = await openPage(browser, devUrl);
    page.setDefaultTimeout(30_000); // the first load transforms the sources
    const acked = page
      .waitForEvent('websocket', (ws) => ws.url().endsWith('/graphql'))
      .then(
        (ws) =>
          new Promise<void>((resolve) =>
            ws.on('framereceived', (f) => String(f.payload).includes('connection_ack') && resolve()),
          ),
      );
    await signIn(page, person);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await acked;
    const { tokens } = await apiLogin(app.url, app.admin);
    const res = await apiCall(
      app.url,
      'PUT',
      `/api/user/users/${person.id}`,
      { lastName: 'Live' },
      tokens.accessToken,
    );
    expect(res.status).toBe(200);
    await page.getByTestId('current-user-name').getByText('Dev Live').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);
});
