// Demo data for `npm start`, made through the same commands a user would issue: one user of each
// other role (idempotent by e-mail claim) and, on a store with no manager yet, three managers, one
// linked to the demo USER.

import type { AppServices } from '../services/app/context.js';
import { approveApproval } from '../services/approvals/approve.js';
import { billsForApproval } from '../services/approvals/bills.js';
import { createApproval } from '../services/approvals/create.js';
import { setApprovalPolicy } from '../services/approvals/policy.js';
import { rejectApproval } from '../services/approvals/reject.js';
import type { Actor } from '../services/auth/permissions.js';
import { COMPANY_IDS_SEQUENCE, createCompany } from '../services/companies/create.js';
import { configureNacha } from '../services/companies/nacha.js';
import { setPaymentAccount } from '../services/companies/payment-account.js';
import { qb } from '../services/companies/quickbooks.js';
import { quickbooksCompanyInfo } from '../services/companies/quickbooks-company-info.js';
import { startQbOAuth } from '../services/companies/quickbooks-oauth.js';
import { refreshQbToken } from '../services/companies/quickbooks-refresh.js';
import { deactivateCompany } from '../services/companies/status.js';
import { createManager, MANAGER_IDS_SEQUENCE } from '../services/managers/managers.js';
import { claimStreamOf, recordNewUser } from '../services/users/auth.js';
import { emailClaimDecider } from '../services/users/email-claim-decider.js';
import { updateVendorBanking } from '../services/vendors/banking.js';
import { approveBankingChange } from '../services/vendors/banking-changes.js';
import { listVendors } from '../services/vendors/queries.js';
import { getVendorSync, requestVendorSync } from '../services/vendors/sync.js';
import { consentAndReturn } from './qbo-sandbox/connect.js';
import { type DemoBank, seedDemoBank } from './seed-bank.js';
import { seedDemoPayments } from './seed-payments.js';

export const DEMO_PASSWORD = 'demo-pass-2026';

const DEMO_USERS = [
  { email: 'morgan.moderator@billflow.local', firstName: 'Morgan', lastName: 'Reyes', role: 'MODERATOR' },
  { email: 'uma.user@billflow.local', firstName: 'Uma', lastName: 'Patel', role: 'USER' },
  { email: 'gus.guest@billflow.local', firstName: 'Gus', lastName: 'Olsen', role: 'GUEST' },
] as const;

/** The QuickBooks simulator the demo companies connect to (tools/qbo-sandbox). */
export interface DemoQuickBooks {
  /** The simulator's base URL. */
  url: string;
  /** The gateway's base URL: the OAuth callback goes there. */
  gatewayUrl: string;
  /** A registered app, and one whose access tokens last two minutes (the refresh job's demo). */
  app: { clientId: string; clientSecret: string };
  shortLivedApp: { clientId: string; clientSecret: string };
}

export async function seedDemoData(app: AppServices, quickbooks?: DemoQuickBooks, bank?: DemoBank) {
  for (const u of DEMO_USERS) {
    const { state } = await app.commands.load(emailClaimDecider, claimStreamOf(app, u.email));
    if (state.claimedBy !== null) continue;
    await recordNewUser(
      app,
      null,
      { ...u, password: DEMO_PASSWORD },
      { system: true, context: { commandId: `seed-${u.email}` } },
    );
  }
  await seedDemoManagers(app);
  if (quickbooks) {
    await seedDemoCompanies(app, quickbooks);
    await seedDemoApprovals(app, quickbooks.url, bank);
  }
  return DEMO_USERS.map((u) => ({ email: u.email, role: u.role, password: DEMO_PASSWORD }));
}

const DEMO_MANAGERS = [
  {
    firstName: 'Dana',
    lastName: 'Whitfield',
    email: 'dana.whitfield@billflow.local',
    title: 'Controller',
    phone: '(555) 010-2040',
    linkTo: 'uma.user@billflow.local',
  },
  {
    firstName: 'Ravi',
    lastName: 'Menon',
    email: 'ravi.menon@billflow.local',
    title: 'Accounts Payable Manager',
    phone: null,
    linkTo: null,
  },
  {
    firstName: 'Elena',
    lastName: 'Park',
    email: 'elena.park@billflow.local',
    title: 'CFO',
    phone: '(555) 010-7781',
    linkTo: null,
  },
];

async function firstAdmin(app: AppServices): Promise<Actor | null> {
  const admin = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('role', '=', 'ADMIN')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  return admin ? { id: admin.id, role: 'ADMIN', email: admin.email ?? '' } : null;
}

/** Only on a store where no manager was ever created (the id sequence was never used). */
async function seedDemoManagers(app: AppServices) {
  const seq = await app.pool.query(`SELECT is_called FROM ${MANAGER_IDS_SEQUENCE}`);
  if (seq.rows[0]?.is_called) return;
  // As the first admin would: the same use case, permission check included.
  const actor = await firstAdmin(app);
  if (!actor) return;
  for (const { linkTo, ...m } of DEMO_MANAGERS) {
    const user = linkTo
      ? await app.db.selectFrom('users').select('id').where('email_lower', '=', linkTo).executeTakeFirst()
      : undefined;
    await createManager(app, actor, { ...m, userId: user?.id ?? null });
  }
}

/**
 * Connects a company as an admin does in the browser: start the flow, choose the simulator's
 * company on its consent page, and let the popup load the callback.
 */
async function connectThroughOAuth(
  app: AppServices,
  actor: Actor,
  companyId: number,
  qbo: DemoQuickBooks,
  creds: { clientId: string; clientSecret: string },
  realmIndex: number,
) {
  const { authUrl } = await startQbOAuth(app, actor, companyId, {
    qbClientId: creds.clientId,
    qbClientSecret: creds.clientSecret,
    qbIsSandbox: true,
    qbCallbackUrl: `${qbo.gatewayUrl}/api/company/companies/qb-oauth/callback`,
  });
  await consentAndReturn(authUrl, qbo.url, realmIndex);
}

/**
 * Four companies, on a store where no company was ever created: one connected with its payment
 * account and NACHA settings complete, one whose two-minute tokens the refresh job keeps renewing,
 * one whose grant QuickBooks revoked (disconnected), one inactive.
 */
async function seedDemoCompanies(app: AppServices, qbo: DemoQuickBooks) {
  const seq = await app.pool.query(`SELECT is_called FROM ${COMPANY_IDS_SEQUENCE}`);
  if (seq.rows[0]?.is_called) return;
  const actor = await firstAdmin(app);
  if (!actor) return;
  const managers = await app.db
    .selectFrom('managers')
    .select('id')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  const uma = await app.db
    .selectFrom('users')
    .select('id')
    .where('email_lower', '=', 'uma.user@billflow.local')
    .executeTakeFirst();
  const morgan = await app.db
    .selectFrom('users')
    .select('id')
    .where('email_lower', '=', 'morgan.moderator@billflow.local')
    .executeTakeFirst();
  const base = (name: string, i: number) => ({
    name,
    email: `ap@${name.split(' ')[0].toLowerCase()}.example`,
    industry: ['Food & Beverage', 'Transportation', 'Healthcare', 'Construction'][i],
    managerId: managers[i % Math.max(1, managers.length)]?.id ?? null,
    processorId: uma?.id ?? null,
    approverId: morgan?.id ?? null,
    accountantId: actor.id,
  });

  const sunrise = await createCompany(app, actor, base('Sunrise Bakery LLC', 0));
  await connectThroughOAuth(app, actor, sunrise.id, qbo, qbo.app, 0);
  const accounts = (await quickbooksCompanyInfo(app, actor, sunrise.id)).QueryResponse.Account;
  const richest = [...accounts].sort((a, b) => b.CurrentBalance - a.CurrentBalance)[0];
  if (richest) await setPaymentAccount(app, actor, sunrise.id, { qbPaymentAccountReference: richest.Id });
  await configureNacha(app, actor, sunrise.id, {
    bankRoutingNumber: '121000248',
    bankAccountNumber: '4120005567',
    bankAccountType: 'checking',
    bankName: 'Wells Fargo',
    companyTaxId: '94-1234567',
    immediateDestinationName: 'WELLS FARGO BANK',
  });

  await seedDemoVendors(app, actor, sunrise.id);

  const harbor = await createCompany(app, actor, base('Harbor Logistics Inc', 1));
  await connectThroughOAuth(app, actor, harbor.id, qbo, qbo.shortLivedApp, 1);

  const pinecrest = await createCompany(app, actor, base('Pinecrest Dental Group', 2));
  await connectThroughOAuth(app, actor, pinecrest.id, qbo, qbo.app, 2);
  // Someone disconnected the app inside QuickBooks: Intuit revokes the grant, and the next refresh
  // (here the admin's "Refresh QB Token") learns it and marks the company disconnected.
  const conn = await qb(app).connections.get(pinecrest.id);
  if (conn?.tokens)
    await fetch(`${qbo.url}/v2/oauth2/tokens/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${qbo.app.clientId}:${qbo.app.clientSecret}`).toString('base64')}`,
      },
      body: JSON.stringify({ token: conn.tokens.refreshToken }),
    });
  await refreshQbToken(app, actor, pinecrest.id).catch(() => {});

  const northwind = await createCompany(app, actor, base('Northwind Builders Co', 3));
  await deactivateCompany(app, actor, northwind.id);
}

// Real US routing numbers (each passes the ABA check digit) and their banks.
const DEMO_BANKS = [
  { routingNumber: '021000021', bankName: 'JPMorgan Chase' },
  { routingNumber: '026009593', bankName: 'Bank of America' },
  { routingNumber: '121000248', bankName: 'Wells Fargo' },
  { routingNumber: '011000015', bankName: 'Federal Reserve Bank of Boston' },
  { routingNumber: '091000019', bankName: 'Wells Fargo Minnesota' },
];

/**
 * Sunrise's vendors, synced from the simulator by the same job the Sync button queues, then bank
 * details for most active vendors through the banking form's command; every fifth one is left
 * without, so the missing-banking views have something to show.
 */
async function seedDemoVendors(app: AppServices, actor: Actor, companyId: number) {
  const sync = await requestVendorSync(app, actor, { companyId });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await getVendorSync(app, actor, sync.syncId);
    if (s.status === 'completed' || s.status === 'failed') break;
    if (Date.now() > deadline) throw new Error('the demo vendor sync did not finish within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const vendors = await listVendors(app, actor, { companyId, limit: 100 });
  // The company's control on bank detail changes is on (the default): each entry is held until a
  // second person approves it. The demo's moderator does, as a firm's second pair of eyes would.
  const checker = (await demoModerator(app)) ?? actor;
  for (const [i, v] of vendors.data.entries()) {
    if (!v.active || i % 5 === 4) continue;
    const bank = DEMO_BANKS[i % DEMO_BANKS.length];
    const held = await updateVendorBanking(app, actor, v.id, {
      ...bank,
      accountNumber: String(4_000_000_000 + v.id * 7919).slice(0, 12),
      accountType: i % 4 === 3 ? 'savings' : 'checking',
    });
    const change = held.pendingBankingChange;
    if (change && checker.id !== actor.id)
      await approveBankingChange(app, checker, v.id, change.changeId, {
        reason: 'Confirmed by phone with the vendor’s accounts team',
      });
  }
}

async function demoModerator(app: AppServices): Promise<Actor | null> {
  const row = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('email_lower', '=', 'morgan.moderator@billflow.local')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? { id: row.id, role: 'MODERATOR', email: row.email ?? '' } : null;
}

/**
 * Sunrise's approvals in every status, made through the same use cases as the screens: pending ones
 * of each priority, approved ones (one in part; the payments process manager asks for their files),
 * a rejected one, one that expires a second after it is created (its delayed job turns it EXPIRED),
 * and the payment statuses (seed-payments.ts). Only while Sunrise
 * has no approval yet, so a second start adds nothing.
 */
async function seedDemoApprovals(app: AppServices, simulatorUrl: string, bank?: DemoBank) {
  const sunrise = await app.db
    .selectFrom('companies')
    .select(['id', 'qb_realm_id'])
    .where('name', '=', 'Sunrise Bakery LLC')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const actor = await firstAdmin(app);
  if (!sunrise?.qb_realm_id || !actor) return;
  const { version } = await app.store.readStream(`approvalbills-${sunrise.id}`);
  if (version > 0) return;
  const morganRow = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('email_lower', '=', 'morgan.moderator@billflow.local')
    .executeTakeFirst();
  const morgan: Actor = morganRow
    ? { id: morganRow.id, role: 'MODERATOR', email: morganRow.email ?? '' }
    : actor;
  const manager = await app.db
    .selectFrom('managers')
    .select('id')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  const bills = (await billsForApproval(app, actor, { companyId: sunrise.id })).filter(
    (b) => !b.inOpenApproval,
  );
  let next = 0;
  const take = (n: number) => {
    const ids = bills.slice(next, next + n).map((b) => b.id);
    next += n;
    return ids;
  };
  const make = (billIds: string[], priority: string, expiresInMs?: number) =>
    createApproval(
      app,
      actor,
      {
        companyId: sunrise.id,
        billIds,
        priority,
        managerId: manager?.id,
        recipients: ['ap@sunrise.example'],
      },
      expiresInMs ? { expiresInMs } : {},
    );
  if (bills.length < 16) return;
  for (const [priority, n] of [
    ['URGENT', 2],
    ['HIGH', 1],
    ['MEDIUM', 3],
    ['LOW', 1],
  ] as const)
    await make(take(n), priority);
  const partly = await make(take(3), 'HIGH');
  await approveApproval(app, morgan, partly.id, { approvedBills: partly.billIdList.slice(0, 2) });
  const whole = await make(take(2), 'MEDIUM');
  await approveApproval(app, morgan, whole.id, { approvedBills: whole.billIdList });
  const rejected = await make(take(2), 'LOW');
  await rejectApproval(app, morgan, rejected.id, {
    rejectionReason: 'Amounts do not match the purchase orders; please re-issue.',
  });
  const expiring = await make(take(1), 'MEDIUM', 1000);
  // The worker's delayed job expires it; wait a little so the demo opens with it EXPIRED.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const row = await app.db
      .selectFrom('approvals')
      .select('status')
      .where('id', '=', expiring.id)
      .executeTakeFirst();
    if (row?.status === 'EXPIRED') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await seedDemoPayments(app, {
    companyId: sunrise.id,
    admin: actor,
    approver: morgan,
    managerId: manager?.id ?? null,
    simulatorUrl,
  });
  // Then Sunrise sends its files over SFTP to the bank sandbox: files at the bank, a return, a NOC.
  if (bank)
    await seedDemoBank(app, bank, {
      companyId: sunrise.id,
      admin: actor,
      approver: morgan,
      managerId: manager?.id ?? null,
    });
  // The demo shows dual control: above $10,000 a second, different approver must approve (set after
  // the approvals above, which one moderator decided). The creator may not approve (the default),
  // and only the staff assigned to Sunrise work on its approvals.
  await setApprovalPolicy(app, actor, sunrise.id, {
    creatorMayNotApprove: true,
    secondApprovalThreshold: DEMO_SECOND_APPROVAL_THRESHOLD,
    assignedStaffOnly: true,
  });
}

export const DEMO_SECOND_APPROVAL_THRESHOLD = 10_000;
