// The demo's bank: Sunrise Bakery sends its files over SFTP to the bank sandbox (tools/bank-sandbox,
// its ODFI 121000248), set up and carried along by the same use cases and jobs as in use. Two vendors
// get the accounts the sandbox's rules answer: one ending 0003 (returned R03), one ending 0101
// (corrected by a C01 notification of change). One approval pays the R03 vendor and another vendor,
// so its file comes back in part; another pays the C01 vendor, whose corrected account then waits
// for an ADMIN. Both are batches of their window's one file (decision 0040), which goes to the bank by
// Send now (the bank's trigger cut-off), the bank's answers
// are read from its outbox, and each vendor with an e-mail gets its remittance advice. Only while
// Sunrise still sends its files by hand, so a second start adds nothing.
import type { AppServices } from '../services/app/context.js';
import { approveApproval } from '../services/approvals/approve.js';
import { billsForApproval } from '../services/approvals/bills.js';
import { createApproval } from '../services/approvals/create.js';
import type { Actor } from '../services/auth/permissions.js';
import { setBankConnection } from '../services/companies/bank-connection.js';
import { pollBank } from '../services/payments/delivery.js';
import { sendWaitingFilesNow } from '../services/payments/send-now.js';
import { updateVendorBanking } from '../services/vendors/banking.js';
import { approveBankingChange } from '../services/vendors/banking-changes.js';
import { DEMO_ODFI_ROUTING, demoBankUsers } from './bank-sandbox/demo.js';

/** The bank sandbox npm start runs. */
export interface DemoBank {
  sftpPort: number;
  hooksUrl: string;
  hostKeyFingerprint(): string;
}

export interface DemoBankContext {
  companyId: number;
  admin: Actor;
  /** Approves the approvals and the bank detail changes (the creator may not). */
  approver: Actor;
  managerId: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`the demo's bank: ${what} did not happen within ${ms / 1000} s`);
    await sleep(250);
  }
}

export async function seedDemoBank(app: AppServices, bank: DemoBank, ctx: DemoBankContext) {
  const connection = await app.bankConnections.connection(ctx.companyId);
  if (connection.mode !== 'manual') return;
  if (DEMO_ODFI_ROUTING !== '121000248') return;
  const user = demoBankUsers[0];
  await setBankConnection(app, ctx.admin, ctx.companyId, {
    mode: 'sftp',
    host: '127.0.0.1',
    port: bank.sftpPort,
    username: user.username,
    password: user.password,
    inbox: '/inbox',
    outbox: '/outbox',
    hostKeyFingerprint: bank.hostKeyFingerprint(),
  });

  // Three vendors with open bills no approval holds, below the second-approval threshold.
  const bills = (await billsForApproval(app, ctx.admin, { companyId: ctx.companyId })).filter(
    (b) => !b.inOpenApproval && b.bankingReady && !b.possibleDuplicate && !b.refusedReason && b.balance > 0,
  );
  const byVendor = new Map<number, (typeof bills)[number]>();
  for (const b of bills)
    if (b.vendorId !== null && !byVendor.has(b.vendorId) && b.balance < 5_000) byVendor.set(b.vendorId, b);
  const [returned, paid, corrected] = [...byVendor.entries()];
  if (!corrected) return;
  const account = (vendorId: number, suffix: string) =>
    `${String(7_100_000 + vendorId).slice(0, 6)}${suffix}`;
  for (const [vendorId, suffix] of [
    [returned[0], '0003'],
    [corrected[0], '0101'],
  ] as const) {
    const held = await updateVendorBanking(app, ctx.admin, vendorId, {
      routingNumber: '026009593',
      bankName: 'Bank of America',
      accountNumber: account(vendorId, suffix),
      accountType: 'checking',
    });
    const change = held.pendingBankingChange;
    if (change)
      await approveBankingChange(app, ctx.approver, vendorId, change.changeId, {
        reason: 'Confirmed by phone with the vendor’s accounts team',
      });
  }

  const make = async (chosen: Array<(typeof bills)[number]>) => {
    const a = await createApproval(app, ctx.admin, {
      companyId: ctx.companyId,
      billIds: chosen.map((b) => b.id),
      priority: 'MEDIUM',
      managerId: ctx.managerId ?? undefined,
      recipients: ['ap@sunrise.example'],
    });
    await approveApproval(app, ctx.approver, a.id, { approvedBills: a.billIdList });
    return a.id;
  };
  const partly = await make([returned[1], paid[1]]);
  const noc = await make([corrected[1]]);
  const delivery = (approvalId: string) =>
    app.db.selectFrom('ach_deliveries').selectAll().where('approval_id', '=', approvalId).executeTakeFirst();
  for (const id of [partly, noc])
    await until('the file waiting for its window', async () => (await delivery(id))?.status === 'scheduled');
  await sendWaitingFilesNow(app, ctx.admin, { companyId: ctx.companyId });
  for (const id of [partly, noc])
    await until('the bank upload', async () => {
      const row = await app.db
        .selectFrom('approvals')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.status === 'BANK_UPLOADED';
    });
  // The bank answers now rather than after its delay: the acknowledgements, an R03 and a C01.
  await fetch(`${bank.hooksUrl}/__bank/answer-now`, { method: 'POST' });
  await until('the R03 return applied', async () => {
    await pollBank(app, ctx.companyId, {});
    const row = await app.db
      .selectFrom('payment_entries')
      .select('status')
      .where('approval_id', '=', partly)
      .where('status', '=', 'returned')
      .executeTakeFirst();
    return row !== undefined;
  });
  await until('the C01 notification of change recorded', async () => {
    await pollBank(app, ctx.companyId, {});
    const row = await app.db
      .selectFrom('payment_entries')
      .select('change_code')
      .where('approval_id', '=', noc)
      .executeTakeFirst();
    return row?.change_code === 'C01';
  });
}
