// A connected company made ready to pay through the product's own calls, as the payment tests need
// it: the approval policy, the NACHA settings and the payment account, and its vendors synced from
// the QuickBooks simulator.
import { expect } from 'vitest';
import { api } from './http.js';

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
 * One approval, by anyone unless `creatorMayNotApprove`; the NACHA settings; and the payment account
 * when one is given (a QuickBooks bank account's id).
 */
export async function readyToPay(
  url: string,
  token: string,
  companyId: number,
  opts: { creatorMayNotApprove?: boolean; paymentAccount?: string } = {},
) {
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
  if (opts.paymentAccount === undefined) return;
  const account = await api(url, 'PUT', `/api/company/companies/${companyId}/payment-account`, {
    body: { qbPaymentAccountReference: opts.paymentAccount },
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
