// The dashboard in real Chromium against a real gateway: heading and welcome,
// real figures, System Health and its 30 s refresh, Recent Activity (5 newest, plain words), Quick
// Actions, the fallback when the stats call fails, axe, and live updates across two sessions; an
// approval created and approved shows in Recent Activity and on its company's page.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  apiCall,
  apiLogin,
  type Credentials,
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  pathOf,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';
import { graphqlFailure, isOperation, routeOperation } from './support/graphql.js';
import { proxyGraphQLSocket } from './support/socket.js';

let app: TestApp;
let sim: QboSandbox;
const qbApp = { clientId: 'billflow-dashboard', clientSecret: 'dashboard-secret-value-321' };
let browser: Browser;
let bea: Credentials & { id: number };
const created: Array<Credentials & { id: number }> = [];

interface StatsBody {
  data: {
    totalCompanies: number;
    activeUsers: number;
    pendingApprovals: number;
    recentActivity: { id: string; description: string; timestamp: string }[];
  };
}

beforeAll(async () => {
  await ensureWebBuild();
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  [app, browser] = await Promise.all([
    startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } }),
    launchBrowser(),
  ]);
  // Second admin (session B of the live test), three more active users and one inactive one.
  bea = await createUser(app.url, app.admin, 'ADMIN', { firstName: 'Bea', lastName: 'Admin' });
  for (const [first, last] of [
    ['Carl', 'Jones'],
    ['Dana', 'Park'],
    ['Eli', 'Ng'],
  ] as const)
    created.push(await createUser(app.url, app.admin, 'USER', { firstName: first, lastName: last }));
  created.push(
    await createUser(app.url, app.admin, 'USER', { firstName: 'Ina', lastName: 'Active', isActive: false }),
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.close();
});

// One API session for the test's own reads: every sign-in is itself an activity line.
let token: string | null = null;
async function adminToken() {
  token ??= (await apiLogin(app.url, app.admin)).tokens.accessToken;
  return token;
}

async function serverStats(): Promise<StatsBody['data']> {
  const res = await apiCall<StatsBody>(app.url, 'GET', '/api/dashboard/stats', undefined, await adminToken());
  expect(res.status).toBe(200);
  return res.body.data;
}

async function dashboard(who: Credentials = app.admin, prepare?: (page: Page) => Promise<void>) {
  const { page, errors } = await openPage(browser, app.url);
  if (prepare) await prepare(page);
  await signIn(page, who);
  await page.waitForURL('**/dashboard');
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { page, errors };
}

const stat = (page: Page, title: string) =>
  page.getByRole('group', { name: title }).getByTestId(/stat-.*-value/);

const activityTexts = (page: Page) =>
  page.getByRole('group', { name: 'Recent Activity' }).getByTestId('activity-description').allTextContents();

async function waitForStat(page: Page, title: string, value: string) {
  await page.waitForFunction(
    ([t, v]) => {
      const group = [...document.querySelectorAll('[role="group"]')].find(
        (g) => g.querySelector('h2')?.textContent === t,
      );
      return group?.querySelector('[data-testid$="-value"]')?.textContent === v;
    },
    [title, value] as const,
    { timeout: 10_000 },
  );
}

describe('dashboard content', () => {
  it('shows the heading, welcome text and the real figures from the server', async () => {
    const { page, errors } = await dashboard();
    await page.getByText('Welcome back. Here is an overview of your system.').waitFor();
    // admin + Bea + Carl, Dana, Eli are active; Ina is not.
    await waitForStat(page, 'Active Users', '5');
    expect(await stat(page, 'Total Companies').textContent()).toBe('0');
    expect(await stat(page, 'Pending Approvals').textContent()).toBe('0');
    const server = await serverStats();
    expect(server.activeUsers).toBe(5);
    for (const [title, description] of [
      ['Total Companies', 'Active business accounts'],
      ['Active Users', 'Registered users'],
      ['Pending Approvals', 'Awaiting review'],
    ])
      await page.getByRole('group', { name: title }).getByText(description).waitFor();

    // One more active user: after a reload the figure follows.
    created.push(await createUser(app.url, app.admin, 'USER', { firstName: 'Finn', lastName: 'Lee' }));
    await page.reload();
    await waitForStat(page, 'Active Users', '6');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows System Health: status in capitals with the default badge, uptime in h/m, version', async () => {
    const { page } = await dashboard();
    const card = page.getByRole('group', { name: 'System Health' });
    const status = card.getByTestId('health-status');
    await status.waitFor();
    expect(await status.textContent()).toBe('HEALTHY');
    expect(await status.getAttribute('data-variant')).toBe('default');
    expect(await card.getByTestId('health-uptime').textContent()).toMatch(/^\d+h \d{1,2}m$/);
    const res = await apiCall<{ data: { version: string; status: string } }>(
      app.url,
      'GET',
      '/api/health/detailed',
      undefined,
      await adminToken(),
    );
    expect(res.body.data.status).toBe('healthy');
    expect(await card.getByTestId('health-version').textContent()).toBe(res.body.data.version);
    await page.context().close();
  });

  it('shows a status other than healthy with the destructive badge', async () => {
    const { page } = await dashboard(app.admin, async (p) => {
      await routeOperation(p, 'SystemHealth', async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        body.data.systemHealth.status = 'degraded';
        body.data.systemHealth.uptime = 7_500;
        await route.fulfill({ response, json: body });
      });
    });
    const status = page.getByTestId('health-status');
    await status.waitFor();
    expect(await status.textContent()).toBe('DEGRADED');
    expect(await status.getAttribute('data-variant')).toBe('destructive');
    expect(await page.getByTestId('health-uptime').textContent()).toBe('2h 5m');
    await page.context().close();
  });

  it('refetches System Health every 30 seconds (and not sooner)', async () => {
    const healthRequests: Request[] = [];
    const statsRequests: Request[] = [];
    // The page's subscriptions are held back while the page's time runs: the gateway's word that one
    // is live re-reads the figures (subscribed-ack.ts), at whatever moment a busy machine delivers
    // it; held, nothing but the passing of time could read them again.
    const held: Array<() => void> = [];
    let holding = true;
    const { page } = await dashboard(app.admin, async (p) => {
      await p.clock.install();
      p.on('request', (r) => {
        if (isOperation(r, 'SystemHealth')) healthRequests.push(r);
        if (isOperation(r, 'DashboardStats')) statsRequests.push(r);
      });
      await proxyGraphQLSocket(p, {
        fromPage: (msg, forward) => (holding && msg.type === 'subscribe' ? held.push(forward) : forward()),
      });
    });
    // Every request the page made before this one has been seen by the test (they are reported in order).
    const seenSoFar = () => page.evaluate(() => fetch('/api/health').then((r) => r.status));
    await page.getByTestId('health-status').waitFor();
    await page.getByRole('group', { name: 'Recent Activity' }).getByRole('listitem').first().waitFor();
    expect(healthRequests).toHaveLength(1);
    expect(statsRequests).toHaveLength(1);
    await page.clock.fastForward(25_000);
    await seenSoFar();
    expect(healthRequests).toHaveLength(1);
    await page.clock.fastForward(5_500);
    await expect.poll(() => healthRequests.length, { timeout: 10_000 }).toBe(2);
    await page.clock.fastForward(30_000);
    await expect.poll(() => healthRequests.length, { timeout: 10_000 }).toBe(3);
    // A minute of the page's time read the figures only when it opened; once its subscriptions are
    // live they are read again, and from then on only a push reads them.
    await seenSoFar();
    expect(statsRequests).toHaveLength(1);
    expect(held.length).toBeGreaterThan(0);
    holding = false;
    for (const send of held.splice(0)) send();
    await expect.poll(() => statsRequests.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await page.context().close();
  });

  it('lists the 5 newest events in plain words with local timestamps', async () => {
    const { page } = await dashboard();
    await page.getByRole('group', { name: 'Recent Activity' }).getByRole('listitem').first().waitFor();
    const server = await serverStats();
    expect(server.recentActivity.length).toBeGreaterThan(5);
    const expected = server.recentActivity.slice(0, 5);
    const shown = await activityTexts(page);
    expect(shown).toEqual(expected.map((a) => a.description));
    // Plain words: names, not ids or event types.
    for (const text of shown) {
      expect(text).toMatch(/^[A-Z][\w .@'-]+ (signed in|created user|deactivated user|signed out)/);
      expect(text).not.toMatch(/User(Registered|SignedIn)/);
    }
    expect(shown[0]).toMatch(/ signed in$/);
    const times = await page
      .getByRole('group', { name: 'Recent Activity' })
      .locator('time')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('datetime'), e.textContent]));
    expect(times).toHaveLength(5);
    const localTexts = await page.evaluate(
      (isos) => isos.map((iso) => new Date(iso).toLocaleString()),
      expected.map((a) => a.timestamp),
    );
    expect(times).toEqual(expected.map((a, i) => [a.timestamp, localTexts[i]]));
    await page.context().close();
  });

  it('Quick Actions go to the company, user and approval screens', async () => {
    const { page } = await dashboard();
    for (const [label, path] of [
      ['Add New Company', '/companies/new'],
      ['Create User Account', '/users/new'],
      ['Review Approvals', '/approvals'],
    ]) {
      await page.getByRole('group', { name: 'Quick Actions' }).getByRole('link', { name: label }).click();
      await page.waitForURL(`**${path}`);
      expect(pathOf(page)).toBe(path);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.goBack();
      await page.waitForURL('**/dashboard');
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    }
    await page.context().close();
  });

  it('has no serious or critical axe violation', async () => {
    const { page } = await dashboard();
    await page.getByTestId('health-status').waitFor();
    await page.getByRole('group', { name: 'Recent Activity' }).getByRole('listitem').first().waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('when the calls fail', () => {
  it('shows zero figures, the error with Retry, and recovers on Retry', async () => {
    let fail = true;
    let attempts = 0;
    const { page, errors } = await dashboard(app.admin, async (p) => {
      // The page's subscriptions are held back: the word that one is live re-reads the figures, an
      // attempt more at whatever moment a busy machine delivers it. The attempts counted here are
      // the query layer's own.
      await proxyGraphQLSocket(p, {
        fromPage: (msg, forward) => (msg.type === 'subscribe' ? null : forward()),
      });
      await routeOperation(p, 'DashboardStats', async (route) => {
        if (!fail) return route.fallback();
        attempts += 1;
        await route.fulfill(graphqlFailure('Stats service unavailable', 'UNAVAILABLE'));
      });
    });
    const alert = page.getByTestId('stats-error');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Error loading dashboard stats: Stats service unavailable');
    expect(attempts).toBe(2); // the query layer retries once
    for (const title of ['Total Companies', 'Active Users', 'Pending Approvals'])
      expect(await stat(page, title).textContent()).toBe('0');
    await page.getByRole('group', { name: 'Recent Activity' }).getByText('No recent activity').waitFor();
    // The rest of the screen still works.
    expect(await page.getByTestId('health-status').textContent()).toBe('HEALTHY');

    fail = false;
    await alert.getByRole('button', { name: 'Retry' }).click();
    await alert.waitFor({ state: 'detached' });
    const server = await serverStats();
    await waitForStat(page, 'Active Users', String(server.activeUsers));
    expect(await activityTexts(page)).toHaveLength(5);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the health error when the health call fails', async () => {
    const { page } = await dashboard(app.admin, async (p) => {
      await routeOperation(p, 'SystemHealth', (route) =>
        route.fulfill(graphqlFailure('Health probe failed', 'UNAVAILABLE')),
      );
    });
    await page
      .getByRole('group', { name: 'System Health' })
      .getByText('Error loading system health: Health probe failed')
      .waitFor();
    expect(await page.getByTestId('health-status').count()).toBe(0);
    await page.context().close();
  });
});

describe('live updates across sessions', () => {
  it("session A's dashboard follows what session B and the API do, without a reload", async () => {
    let socket: Awaited<ReturnType<typeof proxyGraphQLSocket>> | undefined;
    const a = await dashboard(app.admin, async (p) => {
      socket = await proxyGraphQLSocket(p);
    });
    // Both dashboard subscriptions are live (the gateway said so) before anything happens.
    await expect
      .poll(() => socket?.isLive('DashboardActivityAdded') && socket.isLive('DashboardUserChanged'), {
        timeout: 20_000,
      })
      .toBe(true);
    const before = await serverStats();
    await waitForStat(a.page, 'Active Users', String(before.activeUsers));
    await a.page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });
    const requestsOfA: string[] = [];
    a.page.on('request', (r) =>
      requestsOfA.push(isOperation(r, 'DashboardStats') ? 'DashboardStats' : new URL(r.url()).pathname),
    );

    // Session B signs in in another browser context: A sees it.
    const b = await openPage(browser, app.url);
    await signIn(b.page, bea);
    await a.page
      .getByRole('group', { name: 'Recent Activity' })
      .getByText('Bea Admin signed in')
      .first()
      .waitFor();
    expect((await activityTexts(a.page))[0]).toBe('Bea Admin signed in');

    // Session B deactivates Carl (with its own session's token): the activity and the count follow.
    const carl = created[0];
    const status = await b.page.evaluate(async (id) => {
      const res = await fetch(`/api/user/users/${id}/deactivate`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${localStorage.getItem('auth_token')}` },
      });
      return res.status;
    }, carl.id);
    expect(status).toBe(200);
    await a.page
      .getByRole('group', { name: 'Recent Activity' })
      .getByText('Bea Admin deactivated user Carl Jones')
      .waitFor();
    await waitForStat(a.page, 'Active Users', String(before.activeUsers - 1));

    // A plain API call creates a user: A shows it and the count goes up again.
    const gus = await createUser(app.url, app.admin, 'USER', { firstName: 'Gus', lastName: 'Hale' });
    await a.page
      .getByRole('group', { name: 'Recent Activity' })
      .getByText(/created user Gus Hale$/)
      .waitFor();
    await waitForStat(a.page, 'Active Users', String(before.activeUsers));
    const shown = await activityTexts(a.page);
    expect(shown.length).toBeLessThanOrEqual(5);
    expect(shown.indexOf(shown.find((t) => t.endsWith('created user Gus Hale')) ?? '')).toBeLessThan(
      shown.indexOf('Bea Admin deactivated user Carl Jones'),
    );
    // Matches the server's own newest-first list.
    await expect
      .poll(async () => {
        const server = (await serverStats()).recentActivity.slice(0, 5).map((x) => x.description);
        return JSON.stringify(server) === JSON.stringify(await activityTexts(a.page));
      })
      .toBe(true);

    // No reload happened, and the page never went to the server for the document again.
    expect(
      await a.page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    expect(requestsOfA).not.toContain('/dashboard');
    expect(requestsOfA).toContain('DashboardStats');
    expect(gus.id).toBeGreaterThan(0);
    expect(a.errors).toEqual([]);
    await b.page.context().close();
    await a.page.context().close();
  });
});

// Last: its company and approval lines would otherwise be the newest in the tests above.
describe('approvals and companies in Recent Activity', () => {
  it('an approval created and approved shows on the dashboard and on its company’s page, live', async () => {
    const admin = await adminToken();
    const company = await apiCall<{ data: { id: number } }>(
      app.url,
      'POST',
      '/api/company/companies',
      { name: 'Activity Client Co' },
      admin,
    );
    expect(company.status).toBe(201);
    const companyId = company.body.data.id;
    const { realmId } = await connectOverHttp({
      gatewayUrl: app.url,
      simUrl: sim.url,
      token: admin,
      companyId,
      app: qbApp,
      realmIndex: 0,
    });
    const bill = sim
      .realms()
      .find((r) => r.realmId === realmId)!
      .bills.find((b) => Number(b.Balance) > 0)!;

    const a = await dashboard();
    await a.page.getByRole('group', { name: 'Recent Activity' }).getByRole('listitem').first().waitFor();
    const created = await apiCall<{ data: { id: string } }>(
      app.url,
      'POST',
      '/api/bill-approval/approvals',
      { companyId, billIds: [bill.Id], recipients: ['payables@dashboard-e2e.test'] },
      admin,
    );
    expect(created.status).toBe(201);
    const feed = a.page.getByRole('group', { name: 'Recent Activity' });
    await feed.getByText(/created an approval for Activity Client Co \(1 bill, \$[\d,]+\.\d\d\)$/).waitFor();
    // Bea approves (the creator may not): the line arrives without a reload.
    const beaToken = (await apiLogin(app.url, bea)).tokens.accessToken;
    const approved = await apiCall(
      app.url,
      'PUT',
      `/api/bill-approval/approvals/${created.body.data.id}/approve`,
      { approvedBills: [bill.Id] },
      beaToken,
    );
    expect(approved.status).toBe(200);
    await feed.getByText('Bea Admin approved an approval for Activity Client Co').waitFor();
    expect(a.errors).toEqual([]);
    await a.page.context().close();

    // The company's own page lists its lines, newest first, in place of the old placeholder.
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.waitForURL('**/dashboard');
    await page.goto(`${app.url}/companies/${companyId}`);
    const card = page.getByRole('group', { name: 'Recent Activity' });
    await card.getByText('Bea Admin approved an approval for Activity Client Co').waitFor();
    const lines = await card.getByTestId('company-activity-description').allTextContents();
    expect(lines[0]).toBe('Bea Admin approved an approval for Activity Client Co');
    expect(lines.some((l) => l.endsWith('connected Activity Client Co to QuickBooks'))).toBe(true);
    expect(lines.at(-1)).toMatch(/created company Activity Client Co$/);
    expect(await page.getByText('Activity timeline coming soon...').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
