// The demo data `npm start` leaves: made through the product's own commands, and only once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { demoBankRules, demoBankUsers } from './bank-sandbox/demo.js';
import { type BankSandbox, startBankSandbox } from './bank-sandbox/server.js';
import { type QboSandbox, startQboSandbox } from './qbo-sandbox/server.js';
import { DEMO_SECOND_APPROVAL_THRESHOLD, seedDemoData } from './seed.js';
import { type SmtpCatcher, startSmtpCatcher } from './smtp-catcher.js';

let t: TestApp;
let sim: QboSandbox;
let bank: BankSandbox;
let bankDir: string;
let catcher: SmtpCatcher;
const app = { clientId: 'billflow-demo', clientSecret: 'demo-secret' };
const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'demo-2min-secret' };

beforeAll(async () => {
  bankDir = mkdtempSync(path.join(tmpdir(), 'billflow-demo-bank-'));
  bank = await startBankSandbox({ stateDir: bankDir, users: demoBankUsers, rules: demoBankRules });
  sim = await startQboSandbox({ clients: [app, { ...shortLivedApp, accessTtlSeconds: 120 }] });
  // The demo's mail reaches an inbox, as npm start's SMTP catcher takes it.
  catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0 });
  t = await startTestApp({
    env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url, SMTP_URL: catcher.smtpUrl },
  });
});
afterAll(async () => {
  await t?.stop();
  await sim?.close();
  await bank?.close();
  await catcher?.stop();
  if (bankDir) rmSync(bankDir, { recursive: true, force: true });
});

describe('demo data', () => {
  it('adds the demo users, three managers (one linked to the demo USER) and four companies; a second run adds nothing', async () => {
    const qbo = { url: sim.url, gatewayUrl: t.url, app, shortLivedApp };
    const demo = await seedDemoData(t.started.app, qbo, bank);
    const received = async () =>
      (await (await fetch(`${bank.hooksUrl}/__bank/received`)).json()).received as Array<{ status: string }>;
    const firstRun = await received();
    await seedDemoData(t.started.app, qbo, bank);
    expect(demo.map((u) => u.role)).toEqual(['MODERATOR', 'USER', 'GUEST']);
    const token = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
    const list = await api(t.url, 'GET', '/api/manager/managers?limit=10', { token });
    expect(list.status).toBe(200);
    expect(list.body.meta.pagination.total).toBe(3);
    const linked = list.body.data.filter((m: { user: unknown }) => m.user !== null);
    expect(linked).toHaveLength(1);
    expect(linked[0]).toMatchObject({
      firstName: 'Dana',
      user: { email: 'uma.user@billflow.local', role: 'USER' },
    });
    // Four companies made through the product's calls: connected and complete, connected on
    // two-minute tokens (the refresh job's), disconnected by QuickBooks, inactive.
    const companies = await api(t.url, 'GET', '/api/company/companies?limit=10', { token });
    expect(companies.body.meta.pagination.total).toBe(4);
    const byName = Object.fromEntries(companies.body.data.map((c: { name: string }) => [c.name, c]));
    expect(byName['Sunrise Bakery LLC']).toMatchObject({
      qbConnectionStatus: 'connected',
      nachaConfigured: true,
      bankAccountNumber: '******5567',
    });
    expect(byName['Sunrise Bakery LLC'].qbPaymentAccountReference).toMatch(/^\d+$/);
    expect(byName['Harbor Logistics Inc'].qbConnectionStatus).toBe('connected');
    expect(byName['Pinecrest Dental Group'].qbConnectionStatus).toBe('disconnected');
    expect(byName['Northwind Builders Co']).toMatchObject({ status: 'INACTIVE', qbRealmId: null });
    // Sunrise's vendors came through the sync job; most active ones have bank details, some not.
    const sunriseId = byName['Sunrise Bakery LLC'].id;
    const vendors = await api(t.url, 'GET', `/api/vendors?companyId=${sunriseId}&limit=100`, { token });
    const realm = sim.realms()[0];
    expect(vendors.body.meta.pagination.total).toBe(realm.vendors.length);
    const withBanking = vendors.body.data.filter((v: { hasBankingInfo: boolean }) => v.hasBankingInfo);
    expect(withBanking.length).toBeGreaterThan(realm.vendors.length / 2);
    expect(withBanking.length).toBeLessThan(realm.vendors.length);
    expect(withBanking[0].accountNumber).toMatch(/^\*+\d{4}$/);
    // The control on bank detail changes stays on in the demo: each entry went live by the demo
    // moderator's approval, none is left held.
    const control = await api(t.url, 'GET', `/api/vendors/banking-control/${sunriseId}`, { token });
    expect(control.body.data).toMatchObject({ enabled: true });
    const morgan = await signIn(t.url, 'morgan.moderator@billflow.local', demo[0].password);
    let nocWaiting = 0;
    for (const v of withBanking) {
      const changes = await api(t.url, 'GET', `/api/vendors/${v.id}/banking-changes`, { token });
      expect(changes.status, JSON.stringify(changes.body)).toBe(200);
      const byPeople = changes.body.data.filter((c: { source: string }) => c.source !== 'noc');
      expect(byPeople.length).toBeGreaterThan(0);
      for (const c of byPeople)
        expect(c).toEqual(
          expect.objectContaining({
            status: 'approved',
            verifiedBy: 'second-person',
            decidedById: morgan.user.id,
            reason: expect.any(String),
          }),
        );
      nocWaiting += changes.body.data.filter(
        (c: { source: string; status: string }) => c.source === 'noc' && c.status === 'pending',
      ).length;
    }
    // The bank's C01 notification of change waits for an ADMIN on one vendor.
    expect(nocWaiting).toBe(1);
    // Sunrise's approvals, in every status (pending of each priority; the payment statuses), once.
    const approvals = await api(
      t.url,
      'GET',
      `/api/bill-approval/approvals?companyId=${sunriseId}&limit=100`,
      {
        token,
      },
    );
    expect(approvals.body.meta.pagination.total).toBe(14);
    // Sunrise sends its files over SFTP to the bank sandbox: its two approvals went there as the two
    // batches of their window's one file (decision 0040), acknowledged; one came back in part with R03.
    // A second run sent nothing more.
    const sunrise = (await api(t.url, 'GET', `/api/company/companies/${sunriseId}`, { token })).body.data;
    expect(sunrise.bankConnection).toMatchObject({ mode: 'sftp' });
    expect(firstRun.map((r) => r.status)).toEqual(['accepted']);
    expect(await received()).toHaveLength(1);
    const states = approvals.body.data.map((a: { bankPaymentState: string | null }) => a.bankPaymentState);
    expect(states.filter((x: string | null) => x === 'PARTLY_RETURNED')).toHaveLength(1);
    // The vendors paid by those two files are told what they were paid (those with an e-mail).
    const deadline = Date.now() + 30_000;
    let remittances = 0;
    while (remittances === 0 && Date.now() < deadline) {
      remittances = Number(
        (
          await t.started.app.pool.query(
            `SELECT count(*)::int AS n FROM mail_deliveries WHERE key LIKE 'remittance_%'`,
          )
        ).rows[0].n,
      );
      if (remittances === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(remittances).toBeGreaterThan(0);
    const statuses = approvals.body.data.map((a: { status: string }) => a.status);
    for (const s of [
      'PENDING',
      'REJECTED',
      'EXPIRED',
      'NACHA_GENERATED',
      'BANK_UPLOADED',
      'PAYMENT_COMPLETED',
    ])
      expect(statuses).toContain(s);
    // Paid ones: one synced to QuickBooks, one whose sync failed (Retry offered).
    const syncs = approvals.body.data
      .filter((a: { status: string }) => a.status === 'PAYMENT_COMPLETED')
      .map((a: { qbPaymentSyncStatus: string }) => a.qbPaymentSyncStatus)
      .sort();
    expect(syncs).toEqual(['FAILED', 'SUCCESS']);
    const priorities = approvals.body.data
      .filter((a: { status: string }) => a.status === 'PENDING')
      .map((a: { priority: string }) => a.priority);
    for (const p of ['URGENT', 'HIGH', 'MEDIUM', 'LOW']) expect(priorities).toContain(p);
    // Every demo company keeps creators from approving; Sunrise shows a second-approval threshold.
    for (const c of companies.body.data) {
      const policy = await api(t.url, 'GET', `/api/bill-approval/policies/${c.id}`, { token });
      expect(policy.body.data).toMatchObject({ creatorMayNotApprove: true, assignedStaffOnly: true });
      expect(policy.body.data.secondApprovalThreshold).toBe(
        c.name === 'Sunrise Bakery LLC' ? DEMO_SECOND_APPROVAL_THRESHOLD : null,
      );
    }
    // The demo MODERATOR and USER are assigned to the demo companies: they see Sunrise's approvals.
    for (const email of ['morgan.moderator@billflow.local', 'uma.user@billflow.local']) {
      const who = (await signIn(t.url, email, demo[0].password)).tokens.accessToken;
      const theirs = await api(
        t.url,
        'GET',
        `/api/bill-approval/approvals?companyId=${sunriseId}&limit=100`,
        {
          token: who,
        },
      );
      expect(theirs.body.meta.pagination.total).toBe(14);
    }
    // The demo users can sign in with the printed password.
    const uma = await signIn(t.url, 'uma.user@billflow.local', demo[1].password);
    expect(uma.user.role).toBe('USER');
    // The whole demo is seeded twice: 18 - 21 s for the first alone on this busy 2-core host, over
    // vitest's 30 s when another file seeds beside it.
  }, 120_000);
});
