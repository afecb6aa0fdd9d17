// The application shell, the guard and the landing redirect in real Chromium against a real gateway:
// roles, navigation, sidebar, drawer, breadcrumbs, sign-out, axe, chunks and budget.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  LOGIN_JS_BUDGET_BYTES,
  lazyChunkSources,
  measureLoginBundle,
  readManifest,
} from '../web/scripts/bundle-budget.js';
import {
  apiCall,
  type Credentials,
  createUser,
  ensureWebBuild,
  launchBrowser,
  MOBILE,
  openPage,
  pathOf,
  type Role,
  readStorage,
  seriousAxeViolations,
  signIn,
  WEB_DIST,
} from './support/browser.js';

let app: TestApp;
let browser: Browser;
const users = {} as Record<Role, Credentials>;

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  users.ADMIN = app.admin;
  users.MODERATOR = await createUser(app.url, app.admin, 'MODERATOR', {
    firstName: 'Mona',
    lastName: 'Moderator',
  });
  users.USER = await createUser(app.url, app.admin, 'USER', { firstName: 'Uma', lastName: 'User' });
  users.GUEST = await createUser(app.url, app.admin, 'GUEST', { firstName: null, lastName: null });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedIn(role: Role, options: { viewport?: { width: number; height: number } } = {}) {
  const { page, errors } = await openPage(browser, app.url, options);
  await signIn(page, users[role]);
  return { page, errors };
}

const navLabels = (page: Page) =>
  page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link')
    .evaluateAll((links) => links.map((a) => a.textContent?.trim() || a.getAttribute('aria-label')));

describe('sign-in per role and the landing redirect', () => {
  const expected: Record<Role, { landing: string; nav: string[]; heading: string }> = {
    ADMIN: {
      landing: '/dashboard',
      nav: [
        'Dashboard',
        'Companies',
        'Vendors',
        'Users',
        'Managers',
        'Approvals',
        'Bank files',
        'Operations',
      ],
      heading: 'Dashboard',
    },
    MODERATOR: {
      landing: '/approvals',
      nav: ['Vendors', 'Approvals', 'Bank files'],
      heading: 'Bill Approvals',
    },
    USER: { landing: '/approvals', nav: ['Approvals'], heading: 'Bill Approvals' },
    GUEST: { landing: '/approvals', nav: [], heading: 'Access restricted' },
  };

  for (const role of ['ADMIN', 'MODERATOR', 'USER', 'GUEST'] as const) {
    it(`${role}: lands on ${expected[role].landing}, sees its entries, its name and role`, async () => {
      const { page, errors } = await signedIn(role);
      await page.waitForURL(`**${expected[role].landing}`);
      await page.getByRole('heading', { name: expected[role].heading, level: 1 }).waitFor();
      await page.getByTestId('sidebar').waitFor();
      expect(await navLabels(page)).toEqual(expected[role].nav);
      const name =
        role === 'GUEST'
          ? users.GUEST.email
          : role === 'ADMIN'
            ? null
            : role === 'MODERATOR'
              ? 'Mona Moderator'
              : 'Uma User';
      if (name) expect(await page.getByTestId('current-user-name').textContent()).toBe(name);
      expect(await page.getByTestId('current-user-role').textContent()).toBe(role);
      // '/' and unknown paths land through the same redirect.
      await page.goto('/');
      await page.waitForURL(`**${expected[role].landing}`);
      await page.goto('/no/such/page');
      await page.waitForURL(`**${expected[role].landing}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});

describe('guard', () => {
  it('sends a visitor without a session to /login', async () => {
    const { page } = await openPage(browser, app.url);
    for (const path of ['/dashboard', '/vendors/3', '/approvals', '/', '/unknown']) {
      await page.goto(path);
      await page.waitForURL('**/login');
    }
    await page.context().close();
  });

  it('shows "Loading..." while the session is checked', async () => {
    const { page } = await openPage(browser, app.url);
    await signIn(page, users.ADMIN);
    // The session check is held until the test has seen 'Loading...'.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    await page.route('**/api/auth/me', async (route) => {
      await answered;
      await route.continue();
    });
    await page.goto('/users');
    await page.getByRole('status').getByText('Loading...').waitFor();
    answer();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.context().close();
  });

  it('redirects an insufficient role: MODERATOR from ADMIN pages, USER from vendors', async () => {
    const mod = await signedIn('MODERATOR');
    await mod.page.goto('/vendors/7/edit-banking');
    await mod.page.getByRole('heading', { name: 'Edit Banking Information' }).waitFor();
    for (const path of ['/users', '/companies/1/nacha', '/managers/new', '/dashboard']) {
      await mod.page.goto(path);
      await mod.page.waitForURL('**/approvals');
    }
    await mod.page.context().close();

    const user = await signedIn('USER');
    await user.page.goto('/vendors');
    await user.page.waitForURL('**/approvals');
    await user.page.goto('/approvals/abc/confirm');
    await user.page.getByRole('heading', { name: 'Confirm Approval' }).waitFor();
    await user.page.context().close();
  });

  it('ADMIN reaches every screen of the route table, each as its own chunk', async () => {
    const { page, errors } = await signedIn('ADMIN');
    const chunks = new Set<string>();
    page.on('request', (r) => {
      const name = new URL(r.url()).pathname.split('/').pop() ?? '';
      if (r.resourceType() === 'script' && name.includes('-page-'))
        chunks.add(name.replace(/-[\w-]{8}\.js$/, ''));
    });
    const screens: Array<[string, string]> = [
      ['/companies', 'Companies'],
      ['/companies/new', 'Create Company'],
      ['/companies/5', 'Company Details'],
      ['/companies/5/edit', 'Edit Company'],
      ['/companies/5/nacha', 'NACHA Configuration'],
      ['/users', 'Users'],
      ['/users/new', 'Create User'],
      ['/users/5', 'User Details'],
      ['/users/5/edit', 'Edit User'],
      ['/managers', 'Managers'],
      ['/managers/new', 'Create Manager'],
      ['/managers/5', 'Manager Details'],
      ['/managers/5/edit', 'Edit Manager'],
      ['/vendors', 'Vendors'],
      ['/vendors/5', 'Vendor Details'],
      ['/vendors/5/edit-banking', 'Edit Banking Information'],
      ['/bills', 'Create Approval from Bills'],
      ['/approvals', 'Bill Approvals'],
      ['/approvals/5', 'Approval Details'],
      ['/approvals/5/confirm', 'Confirm Approval'],
      ['/approvals/direct-action-result', 'Action Result'],
    ];
    for (const [path, heading] of screens) {
      // Client-side navigation (as a link would do), without reloading the app each time.
      await page.evaluate((to) => {
        window.history.pushState({}, '', to);
        window.dispatchEvent(new PopStateEvent('popstate'));
      }, path);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(pathOf(page)).toBe(path);
    }
    // Every screen came as its own chunk (the dashboard's loaded at sign-in, before the listener).
    expect(chunks.size).toBe(screens.length);
    // The public result page needs no session and has no shell.
    const { page: visitor } = await openPage(browser, app.url);
    await visitor.goto('/direct-action-result?action=bank-upload&approvalId=1&success=true');
    await visitor.getByRole('heading', { level: 1 }).waitFor();
    expect(pathOf(visitor)).toBe('/direct-action-result');
    expect(await visitor.getByTestId('sidebar').count()).toBe(0);
    await visitor.context().close();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);
});

describe('navigation', () => {
  it('highlights the active entry, also on sub-paths, and builds breadcrumbs from the path', async () => {
    const { page } = await signedIn('ADMIN');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Companies' }).click();
    await page.waitForURL('**/companies');
    const active = nav.locator('a[aria-current="page"]');
    await active.filter({ hasText: 'Companies' }).waitFor();
    await page.goto('/companies/12/edit');
    await page.getByRole('heading', { name: 'Edit Company' }).waitFor();
    expect(await active.allTextContents()).toEqual(['Companies']);
    expect(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBeNull();
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    expect(await crumbs.getByRole('listitem').allTextContents()).toEqual(['Home', 'Companies', '12', 'Edit']);
    expect(await crumbs.getByRole('link', { name: 'Home' }).getAttribute('href')).toBe('/dashboard');
    await crumbs.getByRole('link', { name: 'Companies' }).click();
    await page.waitForURL('**/companies');
    await page.context().close();
  });

  it('collapses to 4rem icons with tooltips to the right, and expands to 16rem', async () => {
    const { page } = await signedIn('ADMIN');
    const sidebar = page.getByTestId('sidebar');
    const width = async () => (await sidebar.boundingBox())?.width;
    expect(await width()).toBe(256);
    await page.getByRole('button', { name: 'Collapse sidebar' }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="sidebar"]')?.getBoundingClientRect().width === 64,
    );
    const link = page.getByRole('link', { name: 'Users' });
    expect((await link.textContent())?.trim()).toBe('');
    await link.hover();
    const tooltip = page.getByRole('tooltip', { name: 'Users' });
    await tooltip.waitFor();
    const [linkBox, tipBox] = await Promise.all([
      link.boundingBox(),
      page.locator('[data-slot="tooltip-content"]').boundingBox(),
    ]);
    expect(tipBox!.x).toBeGreaterThan(linkBox!.x + linkBox!.width - 1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Expand sidebar' }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="sidebar"]')?.getBoundingClientRect().width === 256,
    );
    await page.context().close();
  });

  it('on small screens uses a drawer that closes on an entry or an overlay click', async () => {
    const { page } = await signedIn('ADMIN', { viewport: MOBILE });
    expect(await page.getByTestId('sidebar').isVisible()).toBe(false);
    const drawer = page.getByTestId('mobile-drawer');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await drawer.waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await drawer.getByRole('link', { name: 'Managers' }).click();
    await page.waitForURL('**/managers');
    await drawer.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Managers', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Open navigation' }).click();
    await drawer.waitFor();
    await page.mouse.click(MOBILE.width - 20, MOBILE.height / 2); // on the overlay, right of the drawer
    await drawer.waitFor({ state: 'detached' });
    expect(pathOf(page)).toBe('/managers');
    await page.context().close();
  });
});

describe('accessibility', () => {
  it('has no serious or critical axe violation in the shell', async () => {
    for (const role of ['ADMIN', 'USER', 'GUEST'] as const) {
      const { page } = await signedIn(role);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.context().close();
    }
    const { page } = await signedIn('ADMIN', { viewport: MOBILE });
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('sign-out', () => {
  it('revokes the refresh token on the server, clears the session and goes to /login', async () => {
    const { page } = await signedIn('USER');
    const { refresh } = await readStorage(page);
    const logoutCall = page.waitForRequest(
      (r) => r.url().endsWith('/api/auth/logout') && r.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    const request = await logoutCall;
    expect(request.postDataJSON()).toEqual({ refreshToken: refresh });
    expect(request.headers().authorization).toMatch(/^Bearer /);
    expect(request.headers()['x-client-environment']).toBe('web');
    await page.waitForURL('**/login');
    expect(await readStorage(page)).toEqual({ token: null, refresh: null, session: null });
    const reuse = await apiCall(app.url, 'POST', '/api/auth/refresh', { refreshToken: refresh });
    expect(reuse.status).toBe(401);
    await page.goto('/approvals');
    await page.waitForURL('**/login');
    await page.context().close();
  });
});

describe('bundle', () => {
  it('keeps the JS of /login within 100 KB gzip and loads each screen as its own chunk', async () => {
    const budget = measureLoginBundle(WEB_DIST);
    expect(budget.gzipBytes).toBeLessThanOrEqual(LOGIN_JS_BUDGET_BYTES);
    const lazy = lazyChunkSources(readManifest(WEB_DIST));
    for (const screen of [
      'dashboard-page',
      'companies-page',
      'users-page',
      'managers-page',
      'vendors-page',
      'approvals-page',
      'app-shell',
    ]) {
      expect(lazy.some((src) => src.includes(`/${screen}.tsx`))).toBe(true);
    }

    const { page } = await openPage(browser, app.url);
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(scripts.some((s) => s.includes('app-shell'))).toBe(false);
    expect(scripts.some((s) => s.includes('-page-'))).toBe(false);
    await signIn(page, users.ADMIN);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(scripts.some((s) => s.includes('dashboard-page'))).toBe(true);
    expect(scripts.some((s) => s.includes('companies-page'))).toBe(false);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Companies' })
      .click();
    await page.getByRole('heading', { name: 'Companies', level: 1 }).waitFor();
    expect(scripts.some((s) => s.includes('companies-page'))).toBe(true);
    await page.context().close();
  });
});
