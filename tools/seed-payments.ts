// The demo's payments: four of Sunrise's approvals carried along the payment path
// by the same commands and jobs as in use — approved, so the payments process manager generates each
// file; then one left at NACHA_GENERATED (its bank-upload e-mails in the inbox), one confirmed at
// the bank, and two paid: one whose QuickBooks bill payments went through, one whose payment
// QuickBooks refused once (the simulator's fault rule), so its sync shows FAILED and Retry works.

import type { AppServices } from '../services/app/context.js';
import { approvalDecider, approvalStreamId } from '../services/approvals/approval-decider.js';
import { approveApproval } from '../services/approvals/approve.js';
import { billsForApproval } from '../services/approvals/bills.js';
import { createApproval } from '../services/approvals/create.js';
import type { Actor } from '../services/auth/permissions.js';

export interface DemoPaymentsContext {
  companyId: number;
  /** Creates the approvals and confirms the steps (as staff do on the confirm page). */
  admin: Actor;
  /** Approves them (the creator may not). */
  approver: Actor;
  managerId: number | null;
  /** The QuickBooks simulator, to make one bill payment fail once. */
  simulatorUrl: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(
  app: AppServices,
  approvalId: string,
  done: (row: { status: string; qb_sync_status: string | null }) => boolean,
  what: string,
) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const row = await app.db
      .selectFrom('approvals')
      .select(['status', 'qb_sync_status'])
      .where('id', '=', approvalId)
      .executeTakeFirst();
    if (row && done(row)) return row;
    if (Date.now() > deadline)
      throw new Error(`the demo approval ${approvalId} did not reach ${what} within 60 s (${row?.status})`);
    await sleep(200);
  }
}

export async function seedDemoPayments(app: AppServices, ctx: DemoPaymentsContext) {
  const bills = (await billsForApproval(app, ctx.admin, { companyId: ctx.companyId })).filter(
    (b) => !b.inOpenApproval && b.bankingReady && !b.possibleDuplicate && !b.refusedReason && b.balance > 0,
  );
  if (bills.length < 7) return;
  let next = 0;
  const make = async (n: number) => {
    const chosen = bills.slice(next, next + n);
    next += n;
    const a = await createApproval(app, ctx.admin, {
      companyId: ctx.companyId,
      billIds: chosen.map((b) => b.id),
      priority: 'HIGH',
      managerId: ctx.managerId ?? undefined,
      recipients: ['ap@sunrise.example'],
    });
    await approveApproval(app, ctx.approver, a.id, { approvedBills: a.billIdList });
    return { id: a.id, billIds: chosen.map((b) => b.id) };
  };
  const generated = await make(2);
  const uploaded = await make(2);
  const paid = await make(2);
  const refused = await make(1);
  for (const a of [generated, uploaded, paid, refused])
    await waitFor(app, a.id, (r) => r.status === 'NACHA_GENERATED', 'NACHA_GENERATED');

  const confirm = async (approvalId: string, type: 'MarkBankUploaded' | 'MarkPaymentCompleted') => {
    await app.commands.handle(
      approvalDecider,
      approvalStreamId(approvalId),
      { type, byUserId: ctx.admin.id, link: null, now: new Date().toISOString() },
      { commandId: `seed-${type}-${approvalId}`, userId: String(ctx.admin.id) },
    );
  };
  for (const a of [uploaded, paid, refused]) await confirm(a.id, 'MarkBankUploaded');
  // QuickBooks refuses the one bill's payment once: the sync fails, and Retry pays it.
  await fetch(`${ctx.simulatorUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      rules: [{ method: 'POST', billId: refused.billIds[0], kind: 'validation', count: 1 }],
    }),
  });
  for (const a of [paid, refused]) await confirm(a.id, 'MarkPaymentCompleted');
  await waitFor(app, paid.id, (r) => r.qb_sync_status === 'SUCCESS', 'a QuickBooks sync SUCCESS');
  await waitFor(app, refused.id, (r) => r.qb_sync_status === 'FAILED', 'a QuickBooks sync FAILED');
}
