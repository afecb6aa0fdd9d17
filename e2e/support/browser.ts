// Shared helpers for the browser tests: the built web app, Chromium, users of each role, sign-in and
// axe-core. Each test file starts its own gateway (test/support/app.ts) and its own Chromium.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB_DIST = path.join(ROOT, 'web', 'dist');
const AXE_PATH = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function newestMtime(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

/** Builds web/dist when it is missing or older than its sources; one build even with parallel files. */
export async function ensureWebBuild(): Promise<void> {
  const manifest = path.join(WEB_DIST, '.vite', 'manifest.json');
  const sources = [
    path.join(ROOT, 'web', 'src'),
    path.join(ROOT, 'web', 'index.html'),
    path.join(ROOT, 'web', 'vite.config.ts'),
  ];
  const stale = () =>
    !existsSync(manifest) || statSync(manifest).mtimeMs < Math.max(...sources.map(newestMtime));
  if (!stale()) return;
  const lock = path.join(ROOT, '.local', 'web-build.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building: wait, then use its result (or take over a stale lock).
      if (Date.now() > deadline || Date.now() - statSync(lock).mtimeMs > 180_000)
        rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (stale()) {
      execFileSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
          'build',
          '--config',
          'web/vite.config.ts',
          '--logLevel',
          'warn',
        ],
        {
          cwd: ROOT,
          stdio: 'inherit',
          // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
          env: { ...process.env, NODE_ENV: 'production' },
        },
      );
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Headless Chromium; Playwright gives every launch a fresh temporary profile (user-data-dir). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface PageOptions {
  viewport?: { width: number; height: number };
}

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };

/** A fresh context (own storage) and page on the app; page errors are collected in `errors`. */
export async function openPage(
  browser: Browser,
  baseURL: string,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL, viewport: options.viewport ?? DESKTOP });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

export interface Credentials {
  email: string;
  password: string;
}

export type Role = 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';

async function apiCall<T>(
  baseURL: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, baseURL), {
    method,
    headers: {
      'Content-Type': 'application/json',
      'X-Client-Environment': 'e2e',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

export async function apiLogin(baseURL: string, who: Credentials) {
  const res = await apiCall<{
    data: { tokens: { accessToken: string; refreshToken: string }; user: { id: number } };
  }>(baseURL, 'POST', '/api/auth/login', who);
  if (res.status !== 200) throw new Error(`login of ${who.email} answered ${res.status}`);
  return res.body.data;
}

export { apiCall };

let userCounter = 0;

/**
 * The admin's API token per gateway, for createUser: a sign-in verifies a password hash, as costly as
 * making the user's own, and a file makes a dozen users. Asked for again when the gateway refuses it.
 */
const adminTokens = new Map<string, Promise<string>>();

function adminToken(baseURL: string, admin: Credentials, fresh = false): Promise<string> {
  const key = `${baseURL} ${admin.email}`;
  const known = adminTokens.get(key);
  if (known && !fresh) return known;
  const asked = apiLogin(baseURL, admin).then((d) => d.tokens.accessToken);
  adminTokens.set(key, asked);
  asked.catch(() => adminTokens.delete(key));
  return asked;
}

/** Creates a user of a role through POST /api/auth/register with the admin's token. */
export async function createUser(
  baseURL: string,
  admin: Credentials,
  role: Role,
  fields: { firstName?: string | null; lastName?: string | null; isActive?: boolean; email?: string } = {},
): Promise<Credentials & { id: number }> {
  userCounter += 1;
  const email = fields.email ?? `${role.toLowerCase()}-${userCounter}-${Date.now()}@billflow.test`;
  const password = 'Passw0rd-e2e!';
  const register = async (token: string) =>
    apiCall<{ data: { id: number } }>(
      baseURL,
      'POST',
      '/api/auth/register',
      {
        email,
        password,
        firstName:
          fields.firstName === undefined ? `${role[0]}${role.slice(1).toLowerCase()}` : fields.firstName,
        lastName: fields.lastName === undefined ? 'Tester' : fields.lastName,
        role,
        isActive: fields.isActive ?? true,
      },
      token,
    );
  let res = await register(await adminToken(baseURL, admin));
  if (res.status === 401) res = await register(await adminToken(baseURL, admin, true));
  if (res.status !== 201)
    throw new Error(`register ${role} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { email, password, id: res.body.data.id };
}

/** Fills and submits the sign-in form (the page must be on /login). */
export async function submitLogin(page: Page, who: Credentials) {
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in through the form and waits until the app has left /login. */
export async function signIn(page: Page, who: Credentials, path = '/login') {
  await page.goto(path);
  await submitLogin(page, who);
  await page.waitForURL((url) => url.pathname !== '/login');
}

export function pathOf(page: Page): string {
  return new URL(page.url()).pathname;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(
    () => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined',
  );
  // Evaluated through the DevTools protocol, not added as an inline <script>: the app's CSP forbids
  // inline scripts (services/gateway/hardening.ts), and the test must not weaken it.
  if (!loaded) await page.evaluate(readFileSync(AXE_PATH, 'utf8'));
  const violations = await page.evaluate(async () => {
    // Measured at rest: a dialog or a toast fading in is below its contrast for a few frames, and
    // axe, run mid-fade, reported 3.63:1 for a dialog's text over its half-drawn backdrop. Infinite
    // animations (spinners, skeletons) never finish and are not waited for; two seconds at most.
    const finite = document
      .getAnimations()
      .filter((a) => a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY);
    await Promise.race([
      Promise.all(finite.map((a) => a.finished.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, 2000)),
    ]);
    const axe = (
      window as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Stops the page's timers (setTimeout, Date and the like, in this document and the next ones) until
 * `page.clock.resume()`: a state that a timer ends, such as a heading shown for 400 ms before the
 * outcome, then lasts while the test looks at it, however busy the machine.
 */
export async function holdTimers(page: Page): Promise<void> {
  // The page's clock only moves forward: it stops a moment after the page's own now (read again if
  // that moment passed before the pause reached the page).
  for (;;) {
    const now = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(now + 1_000);
      return;
    } catch (err) {
      if (!String(err).includes('to the past')) throw err;
    }
  }
}

/** Storage of the page's origin, as the app sees it. */
export function readStorage(page: Page) {
  return page.evaluate(() => ({
    token: localStorage.getItem('auth_token'),
    refresh: localStorage.getItem('refresh_token'),
    session: localStorage.getItem('auth-storage'),
  }));
}

/** Waits for a toast that says `text`; earlier toasts may still be on screen, so match by text. */
export async function expectToast(page: Page, text: string): Promise<void> {
  await page.getByTestId('toast').filter({ hasText: text }).first().waitFor();
}

/** How far the page's (first) table is wider than its container: > 0 when it scrolls sideways. */
export async function tableOverflow(page: Page): Promise<number> {
  return page.$eval('[data-slot=table-container]', (el) => el.scrollWidth - el.clientWidth);
}
