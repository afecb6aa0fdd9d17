// The Managers screens in real Chromium against a real gateway: create with the
// preview and a linked user, list, detail banners, unlink, edit, the 409 toast for a user linked
// elsewhere, delete after confirming, and the screens closed to a MODERATOR.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import {
  apiCall,
  apiLogin,
  createUser,
  ensureWebBuild,
  expectToast,
  launchBrowser,
  openPage,
  pathOf,
  signIn,
} from './support/browser.js';
import { isOperation } from './support/graphql.js';
import { proxyGraphQLSocket } from './support/socket.js';

let app: TestApp;
let browser: Browser;
let uma: { id: number; email: string; password: string };
let moderator: { id: number; email: string; password: string };

beforeAll(async () => {
  await ensureWebBuild();
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  uma = await createUser(app.url, app.admin, 'USER', { firstName: 'Uma', lastName: 'Patel' });
  moderator = await createUser(app.url, app.admin, 'MODERATOR', { firstName: 'Morgan', lastName: 'Reyes' });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function chooseUser(page: Page, label: string) {
  await page.getByRole('combobox', { name: 'Linked User' }).click();
  await page.getByRole('option', { name: label }).click();
}

describe('managers screens', () => {
  it('creates, lists, unlinks, edits and deletes a manager; refuses a user linked elsewhere', async () => {
    const { page, errors } = await openPage(browser, app.url);
    await signIn(page, app.admin);
    await page.goto('/managers');
    await page.getByRole('heading', { name: 'Managers', level: 1 }).waitFor();
    await page.getByText('No managers found').waitFor();
    await page.getByRole('link', { name: 'Add Manager' }).click();
    await page.getByRole('heading', { name: 'Create Manager', level: 1 }).waitFor();

    // The form's own checks, then the preview following the typing.
    await page.getByRole('button', { name: 'Create Manager' }).click();
    await page.getByText('First name is required').waitFor();
    await page.getByLabel('First Name').fill('Dana');
    await page.getByLabel('Last Name').fill('Whitfield');
    await page.getByLabel('Email Address *').fill('dana@example.com');
    await page.getByLabel('Title').fill('Controller');
    const preview = page.getByTestId('manager-preview');
    expect(await preview.textContent()).toContain('Dana Whitfield');
    expect(await preview.textContent()).toContain('DW');
    await chooseUser(page, `Uma Patel (${uma.email})`);
    await page.getByRole('button', { name: 'Create Manager' }).click();
    await expectToast(page, 'Manager created successfully');
    await page.getByRole('heading', { name: 'Manager Details', level: 1 }).waitFor();
    await page.getByText('This manager is linked to a user account and can access the system.').waitFor();
    const id = Number(pathOf(page).split('/').pop());

    // In the list: the linked user's name, the title, the status badge.
    await page.goto('/managers');
    const row = page.getByTestId(`manager-row-${id}`);
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('Dana Whitfield');
    expect(text).toContain('Controller');
    expect(text).toContain('Uma Patel');
    expect(text).toContain('ACTIVE');
    await page.getByText('Showing 1 to 1 of 1 manager').waitFor();

    // Unlink from the detail page.
    await page.goto(`/managers/${id}`);
    await page.getByRole('button', { name: 'Unlink User Account' }).click();
    await expectToast(page, 'User unlinked successfully');
    await page
      .getByText('This manager is not linked to any user account and cannot access the system.')
      .waitFor();

    // A second manager holds Uma: linking her to Dana is refused with the server's message.
    const token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
    const other = await apiCall<{ data: { id: number } }>(
      app.url,
      'POST',
      '/api/manager/managers',
      {
        firstName: 'Ravi',
        lastName: 'Menon',
        email: 'ravi@example.com',
        userId: uma.id,
      },
      token,
    );
    expect(other.status).toBe(201);
    await page.getByRole('link', { name: 'Link User Account' }).click();
    await page.getByRole('heading', { name: 'Edit Manager', level: 1 }).waitFor();
    await page.getByText('Update information for Dana Whitfield').first().waitFor();
    await chooseUser(page, `Uma Patel (${uma.email})`);
    await page.getByRole('button', { name: 'Update Manager' }).click();
    await expectToast(page, 'This user is already linked to another manager');
    // A free user links; the title changes too.
    await chooseUser(page, `Morgan Reyes (${moderator.email})`);
    await page.getByLabel('Title').fill('CFO');
    await page.getByRole('button', { name: 'Update Manager' }).click();
    await expectToast(page, 'Manager updated successfully');
    await page.getByRole('heading', { name: 'Manager Details', level: 1 }).waitFor();
    await page.getByText('This manager is linked to a user account and can access the system.').waitFor();
    expect(await page.getByText('CFO').count()).toBeGreaterThan(0);

    // Delete asks first.
    await page.getByRole('button', { name: 'Actions' }).click();
    await page.getByRole('menuitem', { name: 'Delete Manager' }).click();
    await page
      .getByRole('alertdialog')
      .getByText('Are you sure you want to delete Dana Whitfield?')
      .waitFor();
    await page.getByRole('button', { name: 'Delete Manager' }).click();
    await expectToast(page, 'Manager deleted successfully');
    await page.waitForURL('**/managers');
    await page.getByTestId(`manager-row-${other.body.data.id}`).waitFor();
    expect(await page.getByTestId(`manager-row-${id}`).count()).toBe(0);

    // The list's row menu unlinks for real.
    const ravi = page.getByTestId(`manager-row-${other.body.data.id}`);
    expect(await ravi.textContent()).toContain('Uma Patel');
    await page.getByRole('button', { name: 'Actions for Ravi Menon' }).click();
    await page.getByRole('menuitem', { name: 'Unlink User' }).click();
    await expectToast(page, 'User unlinked successfully');
    await ravi.getByText('Not linked').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a manager created while the list was still subscribing, without a reload', async () => {
    // The list is read over HTTP while its subscription goes over the socket: hold the subscription
    // back, create a manager meanwhile (its push goes to nobody), then let it through. The gateway's
    // word that the subscription is live makes the list read again (services/gateway/subscribed-ack.ts).
    // Every other subscription (the shell's, of the signed-in user) stays held to the end: its word
    // re-reads the list too (a manager shows its linked user), at whatever moment a busy machine
    // delivers it, and then the new manager could show before the managers' word, or without it.
    const { page, errors } = await openPage(browser, app.url);
    const managerSubscribes: Array<() => void> = [];
    let onManagerSubscribe = () => {};
    await proxyGraphQLSocket(page, {
      fromPage: (msg, forward) => {
        if (msg.type !== 'subscribe') return forward();
        if (!String(msg.payload?.query).includes('managerChanged')) return;
        managerSubscribes.push(forward);
        onManagerSubscribe();
      },
    });
    let listReads = 0;
    page.on('request', (r) => {
      if (isOperation(r, 'Managers')) listReads += 1;
    });
    await signIn(page, app.admin);
    const managerHeld = new Promise<void>((resolve) => {
      onManagerSubscribe = resolve;
    });
    const listRead = page.waitForResponse((r) => isOperation(r.request(), 'Managers'));
    await page.goto('/managers');
    await page.getByRole('heading', { name: 'Managers', level: 1 }).waitFor();
    await listRead;
    await managerHeld;

    const token = (await apiLogin(app.url, app.admin)).tokens.accessToken;
    const created = await apiCall(
      app.url,
      'POST',
      '/api/manager/managers',
      { firstName: 'Late', lastName: 'Subscriber', email: 'late.subscriber@example.com' },
      token,
    );
    expect(created.status).toBe(201);
    // Answered after its read model: its push has gone out, to no one on this page (no subscription
    // of it is live), and nothing has read the list again since it was first read.
    expect(listReads).toBe(1);
    expect(await page.getByText('Late Subscriber').count()).toBe(0);

    const reread = page.waitForResponse((r) => isOperation(r.request(), 'Managers'));
    for (const send of managerSubscribes.splice(0)) send();
    await reread;
    await page.getByText('Late Subscriber').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps a MODERATOR out of the managers screens', async () => {
    const { page } = await openPage(browser, app.url);
    await signIn(page, moderator);
    await page.goto('/managers');
    await page.waitForURL('**/approvals');
    await page.context().close();
  });
});
