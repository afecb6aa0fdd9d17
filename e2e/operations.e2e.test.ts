// The operations page in real Chromium against a real gateway, Postgres and Redis: an admin sees a
// failed job and a parked event, retries both and sees them leave the failed list / be marked
// requested, live; dismisses a parked event with a reason and sees it on record; a MODERATOR has no
// nav entry and never gets the page.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureParkedTable, parkEvent } from '../services/consumers/parked.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import { QUEUES, queuePrefix } from '../services/shared/queues.js';
import { redisOptions } from '../services/shared/redis.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  createUser,
  ensureWebBuild,
  launchBrowser,
  openPage,
  pathOf,
  seriousAxeViolations,
  signIn,
} from './support/browser.js';

let app: TestApp;
let browser: Browser;
let maintenance: Queue;

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  maintenance = new Queue(QUEUES.maintenance, {
    connection: redisOptions(app.env.REDIS_URL),
    prefix: queuePrefix(app.env.REDIS_PREFIX),
  });
  await ensureParkedTable(app.started.app.db);
}, 240_000);

afterAll(async () => {
  await maintenance?.resume().catch(() => {});
  await maintenance?.close();
  await browser?.close();
  await app?.stop();
});

describe('the operations page', () => {
  it('an admin sees a failed job, retries it and sees it leave the failed list', async () => {
    // The maintenance worker does not know this job's name: it fails.
    const job = await maintenance.add('no-such-job', {}, { jobId: `e2e-${randomUUID()}` });
    await expect.poll(async () => (await job.getState()) as string, { timeout: 15_000 }).toBe('failed');

    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Operations' })
      .click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    expect(pathOf(page)).toBe('/operations');

    const item = page.getByTestId(`failed-job-${job.id}`);
    await item.waitFor();
    await expect.poll(() => item.textContent()).toMatch(/no-such-job/);
    await expect.poll(() => item.textContent()).toMatch(/Attempts: 1/);
    await page
      .getByRole('group', { name: 'Read models and process managers' })
      .getByText('users')
      .first()
      .waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Hold the queue so the retried job waits instead of failing again at once.
    await maintenance.pause();
    await page.getByRole('button', { name: `Retry job no-such-job #${job.id}` }).click();
    await item.waitFor({ state: 'detached' });
    await expect.poll(async () => (await job.getState()) as string).not.toBe('failed');
    expect(errors).toEqual([]);
    await page.context().close();
    await maintenance.resume();
  });

  it('a parked event shows with its error; Retry marks it requested; new failures arrive live', async () => {
    const { page } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/operations');
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    await page.getByText('No parked events').waitFor(); // the first answer is in

    // Parked after the page loaded: it arrives through the subscription, without a reload.
    const event: StoredEvent = {
      id: randomUUID(),
      type: 'UserProfileUpdated',
      schemaVersion: 1,
      streamId: 'user-9999',
      streamVersion: 2,
      position: '0000000000000042:0000000000000007',
      data: {},
      metadata: {} as StoredEvent['metadata'],
      createdAt: new Date(),
    };
    await parkEvent(app.started.app.db, 'pm:e2e-idle', event, new Error('handler exploded'), 4);
    const parked = page.getByTestId(`parked-${event.id}`);
    await parked.waitFor({ timeout: 15_000 });
    await expect.poll(() => parked.textContent()).toMatch(/handler exploded/);
    await expect.poll(() => parked.textContent()).toMatch(/Attempts: 4/);
    await page.getByRole('button', { name: 'Retry UserProfileUpdated in pm:e2e-idle' }).click();
    await parked.getByText('Retry requested').waitFor();
    await page.context().close();
  });

  it('Dismiss asks for a reason; the event leaves the parked list and stays on record', async () => {
    const event: StoredEvent = {
      id: randomUUID(),
      type: 'VendorCreated',
      schemaVersion: 1,
      streamId: 'vendor-1-77',
      streamVersion: 1,
      position: '0000000000000043:0000000000000001',
      data: {},
      metadata: {} as StoredEvent['metadata'],
      createdAt: new Date(),
    };
    await parkEvent(app.started.app.db, 'pm:e2e-idle', event, new Error('company gone'), 3);
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/operations');
    const parked = page.getByTestId(`parked-${event.id}`);
    await parked.waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Dismiss VendorCreated in pm:e2e-idle' }).click();
    const dialog = page.getByRole('dialog', { name: 'Dismiss parked event' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Dismiss event' }).click();
    await dialog.getByText('Please give a reason for dismissing the event').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByLabel('Reason *').fill('Vendor of a deleted test company');
    await dialog.getByRole('button', { name: 'Dismiss event' }).click();
    await dialog.waitFor({ state: 'detached' });
    await parked.waitFor({ state: 'detached' });
    const record = page.getByTestId(`dismissed-${event.id}`);
    await record.waitFor();
    await expect.poll(() => record.textContent()).toMatch(/Reason: Vendor of a deleted test company/);
    await expect.poll(() => record.textContent()).toMatch(/Dismissed by System Administrator/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a MODERATOR has no Operations entry and never gets the page', async () => {
    const moderator = await createUser(app.url, app.admin, 'MODERATOR');
    const { page } = await openPage(browser, app.url);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/operations')) asked.push(r.url());
    });
    await signIn(page, moderator);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Approvals' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Operations' }).count()).toBe(0);
    // The route guard sends an insufficient role to its landing page, as on every ADMIN page.
    await page.goto('/operations');
    await page.waitForURL('**/approvals');
    expect(await page.getByRole('heading', { name: 'Operations', level: 1 }).count()).toBe(0);
    expect(asked).toEqual([]);
    await page.context().close();
  });
});
