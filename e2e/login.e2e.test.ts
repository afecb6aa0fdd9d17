// The sign-in screen in real Chromium against a real gateway.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  apiCall,
  apiLogin,
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  pathOf,
  readStorage,
  seriousAxeViolations,
  submitLogin,
} from './support/browser.js';

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

async function loginPage(): Promise<Page> {
  const { page } = await openPage(browser, app.url);
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Sign in to Admin Dashboard' }).waitFor();
  return page;
}

const alertText = async (page: Page) => (await page.getByRole('alert').textContent())?.trim();

describe('sign-in screen', () => {
  it('shows every text of the spec and has no serious axe violation', async () => {
    const page = await loginPage();
    await page.getByText('Enter your email and password to access the admin panel').waitFor();
    // The tab names the screen.
    expect(await page.title()).toBe('Sign in · Billflow');
    await page.getByText('Need help? Contact your system administrator.').waitFor();
    expect(await page.getByLabel('Email').count()).toBe(1);
    expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await seriousAxeViolations(page)).toEqual([]);
    // With the validation messages and a server error on screen too.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Please enter a valid email address').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('validates on the client without calling the server', async () => {
    const page = await loginPage();
    let calls = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/auth/login')) calls += 1;
    });
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('12345');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Please enter a valid email address').waitFor();
    await page.getByText('Password must be at least 6 characters').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    await page.getByLabel('Email').fill('ada@billflow.test');
    expect(await page.getByText('Please enter a valid email address').count()).toBe(0);
    expect(calls).toBe(0);
    await page.context().close();
  });

  it('says "Signing in..." while busy, then lands an ADMIN on /dashboard, replacing /login in history', async () => {
    const { page } = await openPage(browser, app.url);
    await page.goto('/direct-action-result');
    await page.getByRole('heading', { level: 1 }).waitFor();
    // The sign-in request is held until the test has seen the busy button.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    await page.route('**/api/auth/login', async (route) => {
      await answered;
      await route.continue();
    });
    await page.goto('/login');
    await page.getByLabel('Email').fill(app.admin.email);
    await page.getByLabel('Password').fill(app.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Signing in...' }).waitFor();
    answer();
    await page.waitForURL('**/dashboard');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const storage = await readStorage(page);
    expect(storage.token).toBeTruthy();
    expect(storage.refresh).toBeTruthy();
    expect(JSON.parse(storage.session ?? '{}').state).toMatchObject({
      isAuthenticated: true,
      user: { email: app.admin.email },
    });
    // Back skips /login (its history entry was replaced) and returns to the page before it.
    await page.goBack();
    expect(pathOf(page)).toBe('/direct-action-result');
    await page.context().close();
  });

  it('after invalid credentials shows the message and focuses the e-mail field', async () => {
    const page = await loginPage();
    await submitLogin(page, { email: 'nobody-1@billflow.test', password: 'wrong-password' });
    await page.getByRole('alert').waitFor();
    expect(await alertText(page)).toBe(
      'Invalid email or password. Please check your credentials and try again.',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    await page.context().close();
  });

  it('adds the hint after 3 consecutive failed attempts', async () => {
    const page = await loginPage();
    const hint = page.getByText('Multiple failed attempts detected. Please double-check your credentials.');
    for (let i = 1; i <= 3; i++) {
      await submitLogin(page, { email: 'nobody-2@billflow.test', password: `wrong-password-${i}` });
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      expect(await hint.count()).toBe(i >= 3 ? 1 : 0);
    }
    await page.context().close();
  });

  it('shows 429 when rate limited', async () => {
    const page = await loginPage();
    const who = { email: 'limited@billflow.test', password: 'wrong-password' };
    // The server counts failures per e-mail; the browser shares the limit with these calls.
    for (let i = 0; i < 5; i++) await apiCall(app.url, 'POST', '/api/auth/login', who);
    await submitLogin(page, who);
    await page.getByRole('alert').waitFor();
    expect(await alertText(page)).toBe(
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
    await page.context().close();
  });

  it("shows the server's error otherwise (a deactivated account)", async () => {
    const user = await createUser(app.url, app.admin, 'USER', { isActive: false });
    const page = await loginPage();
    await submitLogin(page, user);
    await page.getByRole('alert').waitFor();
    const text = await alertText(page);
    expect(text).toMatch(/deactivated/i);
    expect(text).not.toBe('Login failed. Please try again.');
    await page.context().close();
  });

  it('shows the messages for server errors, no response, and the fallbacks', async () => {
    const page = await loginPage();
    const cases: Array<[string, (route: import('playwright-core').Route) => Promise<void>, string]> = [
      [
        '500',
        (r) =>
          r.fulfill({
            status: 500,
            contentType: 'application/json',
            body: '{"success":false,"error":"boom"}',
          }),
        'Server error occurred. Please try again later.',
      ],
      [
        '503 without body',
        (r) => r.fulfill({ status: 503, body: '' }),
        'Server error occurred. Please try again later.',
      ],
      [
        'no response',
        (r) => r.abort('connectionrefused'),
        'Unable to connect to the server. Please check your internet connection and try again.',
      ],
      [
        '400 without a message',
        (r) => r.fulfill({ status: 400, contentType: 'application/json', body: '{"success":false}' }),
        'Login failed. Please try again.',
      ],
      [
        '200 without success',
        (r) => r.fulfill({ status: 200, contentType: 'application/json', body: '{"success":false}' }),
        'Login failed',
      ],
    ];
    for (const [, handler, expected] of cases) {
      await page.unroute('**/api/auth/login');
      await page.route('**/api/auth/login', handler);
      await submitLogin(page, { email: 'ada@billflow.test', password: 'secret-password' });
      await page.waitForFunction(
        (text) => document.querySelector('[role="alert"]')?.textContent === text,
        expected,
      );
    }
    await page.context().close();
  });
});

describe('where sign-in goes', () => {
  it('follows returnUrl', async () => {
    const { page } = await openPage(browser, app.url);
    await page.goto('/login?returnUrl=%2Fusers%2Fnew');
    await submitLogin(page, app.admin);
    await page.waitForURL('**/users/new');
    await page.getByRole('heading', { name: 'Create User' }).waitFor();
    await page.context().close();
  });

  it('else returns to the page the user came from (guard redirect remembers it)', async () => {
    const { page } = await openPage(browser, app.url);
    await page.goto('/companies/42/edit?tab=2');
    await page.waitForURL('**/login');
    await submitLogin(page, app.admin);
    await page.waitForURL('**/companies/42/edit?tab=2');
    await page.getByRole('heading', { name: 'Edit Company' }).waitFor();
    await page.context().close();
  });

  it('never follows returnUrl off the site', async () => {
    const { page } = await openPage(browser, app.url);
    await page.goto('/login?returnUrl=https%3A%2F%2Fexample.com%2F');
    await submitLogin(page, app.admin);
    await page.waitForURL('**/dashboard');
    await page.context().close();
  });

  it('an already signed-in visitor of /login goes on at once', async () => {
    const { page } = await openPage(browser, app.url);
    const { tokens } = await apiLogin(app.url, app.admin);
    await page.addInitScript((t) => {
      localStorage.setItem('auth_token', t.accessToken);
      localStorage.setItem('refresh_token', t.refreshToken);
    }, tokens);
    await page.goto('/login');
    await page.waitForURL('**/dashboard');
    await page.context().close();
  });
});
