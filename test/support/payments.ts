// A connected company made ready to pay through the product's own calls, as the payment tests need
// it: connected to the QuickBooks simulator, the approval policy, the NACHA settings and the payment
// account, its vendors synced; and an approval's NACHA outcome awaited.
import { expect } from 'vitest';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import type { Realm } from '../../tools/qbo-sandbox/seed.js';
import type { QboSandbox } from '../../tools/qbo-sandbox/server.js';
import { api } from './http.js';

/** A new company connected over HTTP to one of the simulator's realms, as an admin does it. */
export async function connectedCompany(o: {
  url: string;
  sim: QboSandbox;
  token: string;
  app: { clientId: string; clientSecret: string };
  name: string;
  realmIndex?: number;
}): Promise<{ companyId: number; realmId: string; realm: Realm }> {
  const c = await api(o.url, 'POST', '/api/company/companies', { body: { name: o.name }, token: o.token });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const companyId = c.body.data.id as number;
  const { realmId } = await connectOverHttp({
    gatewayUrl: o.url,
    simUrl: o.sim.url,
    token: o.token,
    companyId,
    app: o.app,
    realmIndex: o.realmIndex ?? 0,
  });
  const realm = o.sim.realms().find((r) => r.realmId === realmId);
  if (!realm) throw new Error(`the simulator has no realm ${realmId}`);
  return { companyId, realmId, realm };
}

/** The approval's detail once the outcome of its NACHA file `version` is on it (waits up to 60 s). */
export async function nachaOutcome(url: string, token: string, approvalId: string, version = 1) {
  // A deadline, not a count of tries: on a busy host each read takes longer (generation is a job).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const d = (await api(url, 'GET', `/api/bill-approval/approvals/${approvalId}`, { token })).body.data;
    if (d.nachaVersion === version && d.nachaProcessingStatus !== 'REQUESTED') return d;
    if (Date.now() > deadline) throw new Error(`no NACHA outcome for ${approvalId} v${version} in 60 s`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The company's NACHA settings (a routing number that passes its check digit). */
export const NACHA_CONFIG = {
  bankRoutingNumber: '021000021',
  bankAccountNumber: '000123456789',
  bankAccountType: 'checking',
  bankName: 'Chase',
  companyTaxId: '12-3456789',
  immediateDestinationName: 'JPMORGAN CHASE',
} as const;

/**
 * The company's control on bank detail changes, set on record by an ADMIN's token. It is on by
 * default; a test that sets the banking it pays turns it off, or each change waits for a second look.
 */
export async function setBankingControl(
  url: string,
  token: string,
  companyId: number,
  enabled: boolean,
  reason = 'Payment tests set the bank details they pay',
) {
  const control = await api(url, 'PUT', `/api/vendors/banking-control/${companyId}`, {
    body: { enabled, reason },
    token,
  });
  expect(control.status, JSON.stringify(control.body)).toBe(200);
}

/**
 * One approval, by anyone unless `creatorMayNotApprove`; the NACHA settings; and the payment account
 * when one is given (a QuickBooks bank account's id).
 */
export async function readyToPay(
  url: string,
  token: string,
  companyId: number,
  opts: { creatorMayNotApprove?: boolean; paymentAccount?: string | null; bankingControl?: boolean } = {},
) {
  // The payment tests set the banking they pay: held for a second look, it would not be live. The
  // control's own tests keep it on (services/vendors/banking-changes.int.test.ts).
  await setBankingControl(url, token, companyId, opts.bankingControl ?? false);
  const policy = await api(url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    body: {
      creatorMayNotApprove: opts.creatorMayNotApprove ?? false,
      secondApprovalThreshold: null,
      assignedStaffOnly: false,
    },
    token,
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  const nacha = await api(url, 'PUT', `/api/company/companies/${companyId}/nacha-config`, {
    body: NACHA_CONFIG,
    token,
  });
  expect(nacha.status, JSON.stringify(nacha.body)).toBe(200);
  // A company connected to QuickBooks pays only with a payment account: its first active bank
  // account unless one is given; `null` leaves it without (a test of that refusal).
  let reference = opts.paymentAccount;
  if (reference === undefined) {
    const company = await api(url, 'GET', `/api/company/companies/${companyId}`, { token });
    if (company.body.data?.qbConnectionStatus !== 'connected') return;
    const info = await api(url, 'GET', `/api/quickbooks/${companyId}/company-info`, { token });
    expect(info.status, JSON.stringify(info.body)).toBe(200);
    const accounts = (info.body.data.QueryResponse.Account ?? []) as Array<{
      Id: string;
      Active: boolean;
      AccountType: string;
    }>;
    reference = accounts.find((a) => a.Active && a.AccountType === 'Bank')?.Id ?? null;
  }
  if (reference === null) return;
  const account = await api(url, 'PUT', `/api/company/companies/${companyId}/payment-account`, {
    body: { qbPaymentAccountReference: reference },
    token,
  });
  expect(account.status, JSON.stringify(account.body)).toBe(200);
}

export interface SyncedVendor {
  id: number;
  qbVendorId: string;
  active: boolean;
}

/** Runs the company's vendor sync to its end; answers its vendors (up to 100). */
export async function syncVendors(url: string, token: string, companyId: number): Promise<SyncedVendor[]> {
  const s = await api(url, 'POST', '/api/vendors/sync', { body: { companyId }, token });
  expect(s.status, JSON.stringify(s.body)).toBe(202);
  for (let i = 0; ; i++) {
    const r = await api(url, 'GET', `/api/vendors/sync/${s.body.data.syncId}`, { token });
    if (!['queued', 'running'].includes(r.body.data.status)) break;
    if (i === 400) throw new Error('the vendor sync did not finish in 20 s');
    await new Promise((res) => setTimeout(res, 50));
  }
  const list = await api(url, 'GET', `/api/vendors?companyId=${companyId}&limit=100`, { token });
  return list.body.data as SyncedVendor[];
}
