// Generating an approval's payment file (the `generate-nacha` job; docs/ARCHITECTURE.md "Payments"):
// what the file pays is the approval's to decide, here: one credit per vendor, the sum of its approved
// bills' open balances (afresh from QuickBooks where the company is connected, never above the
// approved balance; a bill paid there, or whose balance there is not a valid amount, is left out and
// named), to the bank details the approver saw (a vendor whose banking changed, or is blocked, is held
// out, named). The file itself (its date, cut-off window, modifier, traces, text and storage) is the
// payments module's, through the kernel's achFiles port (decision 0041); the outcome is reported to the
// approval with RecordNachaGenerated, or what stops it with RecordNachaFailed, each problem named.
//
// Idempotent: the file id derives from the approval and the request's version, the payments module
// keeps the summary of the file it wrote for that id, and that summary is what is reported, so a job
// run again (a retry, a crash after storing) reports the very same file; the decider drops an outcome
// already recorded.
import type { NachaProblem } from '../../../schema/approvals/payment-events.js';
import type { PaymentFileOutcome } from '../../app/ach-files.js';
import { type CommandContext, eventIdFor } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import type { VendorCredit } from '../../nacha/payment-file.js';
import { type AchWriteError, MAX_ENTRY_AMOUNT_CENTS } from '../../nacha/records.js';
import { QbApiError, QbGrantError, QbThrottledError } from '../../quickbooks/client.js';
import { AppError } from '../../shared/errors.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { bankingFingerprint, fingerprintKey } from './approved-banking.js';
import { bankingHold } from './banking-holds.js';
import { type PayableVendor, qbBalances, vendorsForNacha, vendorsOf } from './nacha-sources.js';
import { planFileBills } from './paid-amounts.js';
import type { PaymentCommand } from './payment-decider.js';
import { paymentAccountPrerequisites } from './prerequisites.js';

export type GeneratedFile = Extract<PaymentCommand, { type: 'RecordNachaGenerated' }>['file'];

/** The payment file of one request: the same id however often the request is worked on. */
export const paymentFileId = (approvalId: string, version: number) =>
  eventIdFor(`nacha-file:${approvalId}:${version}`, 0);

/** 'YYYYMMDD' → 'YYYY-MM-DD'. */
export const isoDay = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

/** The most one entry's 10-digit amount field holds: $99,999,999.99. */
const ENTRY_LIMIT = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
  MAX_ENTRY_AMOUNT_CENTS / 100,
);

/**
 * A writer's refusal as a problem: an entry's amount above what the entry's amount field holds is
 * the entry limit (a vendor's bills summed, or a balanced file's offsetting debit), never the
 * vendor's banking; an entry's other refusals are its vendor's banking; the rest the company's settings.
 */
export function writeProblem(err: AchWriteError, vendorNames: readonly string[]): NachaProblem {
  const entry = /entries\[(\d+)\]/.exec(err.path);
  const vendor = entry ? (vendorNames[Number(entry[1])] ?? null) : null;
  if (entry && err.field === 'amountCents' && err.reason.includes(String(MAX_ENTRY_AMOUNT_CENTS)))
    return {
      kind: 'entry-limit',
      vendorName: vendor,
      message: vendor
        ? `${vendor}: the payment (its approved bills summed) is above ${ENTRY_LIMIT}, the most one ACH entry can carry (its amount field holds 10 digits); approve its bills in more than one approval`
        : `The file's offsetting debit (the credits' total) is above ${ENTRY_LIMIT}, the most one ACH entry can carry (its amount field holds 10 digits); approve the bills in more than one approval`,
    };
  return vendor
    ? { kind: 'vendor-banking', vendorName: vendor, message: `${vendor}: ${err.field} ${err.reason}` }
    : {
        kind: 'company-settings',
        vendorName: null,
        message: `The company's NACHA settings: ${err.field} ${err.reason}`,
      };
}

type Plan =
  | { problems: NachaProblem[] }
  | {
      credits: VendorCredit[];
      vendors: GeneratedFile['vendors'];
      skippedBills: GeneratedFile['skippedBills'];
      heldVendors: NachaProblem[];
    };

/**
 * The payable vendors a file may not pay (decision 0033): live banking that is not the banking
 * approved (changed after approval), or a change of it pending or frozen. Each is named.
 */
async function bankingHolds(
  app: AppServices,
  state: ApprovalState,
  payable: ReadonlyMap<string, PayableVendor>,
): Promise<Map<string, { name: string; reason: string }>> {
  const held = new Map<string, { name: string; reason: string }>();
  if (payable.size === 0) return held;
  const key = await fingerprintKey(app, state.companyId!);
  for (const p of payable.values()) {
    const reason = bankingHold(state.approvedBanking, {
      qbVendorId: p.qbVendorId,
      fingerprint: bankingFingerprint(key, p.qbVendorId, p.banking),
      routingLast4: null,
      accountLast4: null,
      change: p.change,
    });
    if (reason) held.set(p.qbVendorId, { name: p.name, reason });
  }
  return held;
}

/** What the file pays, or why it cannot be made. */
async function plan(app: AppServices, state: ApprovalState, ctx: CommandContext): Promise<Plan> {
  const companyId = state.companyId!;
  const approved = new Set(state.approvedBillIds);
  const bills = state.bills.filter((b) => approved.has(b.Id));
  const [company, vendorCheck, account] = await Promise.all([
    app.achFiles.company(companyId),
    vendorsForNacha(app, companyId, vendorsOf(bills)),
    paymentAccountPrerequisites(app, companyId, { live: true }),
  ]);
  const problems: NachaProblem[] = [];
  if ('problem' in company) problems.push(company.problem);
  // No file the books could not follow: without a payment account the bank would pay bills that
  // QuickBooks never records.
  for (const p of account)
    if (p.blocking) problems.push({ kind: 'company-settings', vendorName: null, message: p.message });
  problems.push(...vendorCheck.problems);
  const held = await bankingHolds(app, state, vendorCheck.payable);
  const blocked = new Set(vendorCheck.blocked.map((b) => b.qbVendorId));
  for (const b of vendorCheck.blocked) held.set(b.qbVendorId, { name: b.name, reason: b.reason });
  const holds = (partial: boolean): NachaProblem[] =>
    [...held.entries()].map(([id, h]) => ({
      // A blocked account waits for new bank details, not for approve again.
      kind: blocked.has(id) ? 'vendor-banking' : 'vendor-banking-changed',
      vendorName: h.name,
      message: `${h.name}: ${h.reason}${partial ? ' (held out of this file, its bills wait; the rest of the file went ahead)' : ''}`,
    }));
  if (problems.length > 0 || 'problem' in company) return { problems: [...problems, ...holds(false)] };
  // The rest of the file goes ahead: it is what the approver approved, unchanged.
  const paying = bills.filter((b) => !held.has(b.VendorRef.value));
  if (paying.length === 0) return { problems: holds(false) };
  const heldBills = bills
    .filter((b) => held.has(b.VendorRef.value))
    .map((b) => ({ billId: b.Id, docNumber: b.DocNumber, reason: held.get(b.VendorRef.value)!.reason }));

  let balances: Map<string, unknown> | null = null;
  if (company.connected) {
    try {
      balances = await qbBalances(
        app,
        companyId,
        paying.map((b) => b.Id),
        // Not the job's command id: a token renewal on the company's stream is its own command.
        { correlationId: ctx.correlationId, causationId: ctx.causationId, userId: null },
      );
    } catch (err) {
      // Throttled: the job waits out Intuit's window and runs again (workers/approvals/nacha-jobs.ts).
      if (err instanceof QbThrottledError) throw err;
      if (!(err instanceof QbApiError || err instanceof QbGrantError || err instanceof AppError)) throw err;
      return {
        problems: [
          {
            kind: 'quickbooks',
            vendorName: null,
            message: `The bills' balances could not be read from QuickBooks (${err.message}): try Regenerate once QuickBooks answers`,
          },
        ],
      };
    }
  }
  // What the file pays per bill is kept with it: the QuickBooks payments record exactly that.
  const planned = planFileBills(paying, balances);
  const byVendor = planned.vendors;
  const skippedBills = [...planned.skippedBills, ...heldBills];
  if (byVendor.size === 0) {
    const left = planned.skippedBills;
    return {
      problems: [
        {
          kind: 'nothing-to-pay',
          vendorName: null,
          message: left.every((b) => b.reason === 'already paid in QuickBooks')
            ? `Nothing to pay: every approved bill${held.size > 0 ? ' not held out' : ''} is already paid in QuickBooks`
            : `Nothing to pay: ${left.map((b) => `${b.docNumber ?? b.billId} (${b.reason})`).join('; ')}`,
        },
        ...holds(false),
      ],
    };
  }
  const credits: VendorCredit[] = [];
  const vendors: GeneratedFile['vendors'] = [];
  for (const [qbVendorId, v] of byVendor) {
    const payee = vendorCheck.payable.get(qbVendorId)!;
    const b = payee.banking;
    credits.push({
      name: payee.name,
      routingNumber: b.routingNumber,
      accountNumber: b.accountNumber,
      accountType: b.accountType,
      amountCents: v.cents,
      identification: qbVendorId.slice(0, 15),
      addenda: `BILLS ${v.docs.join(',')}`,
    });
    vendors.push({
      qbVendorId,
      name: payee.name,
      amountCents: v.cents,
      accountLast4: b.accountNumber.trim().slice(-4),
      billIds: v.bills.map((x) => x.billId),
      bills: v.bills,
    });
  }
  return { credits, vendors, skippedBills, heldVendors: holds(true) };
}

export type GenerationOutcome = 'stale' | 'generated' | 'failed';

/** Works on one request (approval, version); reports its outcome to the approval. */
export async function generatePaymentFile(
  app: AppServices,
  approvalId: string,
  version: number,
  ctx: CommandContext,
): Promise<GenerationOutcome> {
  const streamId = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  const p = state.payment;
  // A later request replaced this one, or its outcome is recorded: nothing to do.
  if (!state.exists || state.deleted || p.nachaVersion !== version || p.nacha !== 'REQUESTED') return 'stale';
  const report = (command: PaymentCommand) => app.commands.handle(approvalDecider, streamId, command, ctx);
  const fileId = paymentFileId(approvalId, version);
  const kept = await app.achFiles.keptSummary<GeneratedFile>(fileId);
  if (kept) {
    await report({ type: 'RecordNachaGenerated', version, file: kept, now: new Date().toISOString() });
    return 'generated';
  }
  const fail = async (problems: NachaProblem[]) => {
    await report({
      type: 'RecordNachaFailed',
      version,
      reason: problems.map((x) => x.message).join('; '),
      problems,
      now: new Date().toISOString(),
    });
    return 'failed' as const;
  };
  const planned = await plan(app, state, ctx);
  if ('problems' in planned) return fail(planned.problems);
  const outcome: PaymentFileOutcome<GeneratedFile> = await app.achFiles.writePaymentFile(
    {
      companyId: state.companyId!,
      approvalId,
      fileId,
      version,
      credits: planned.credits,
      chosenEffectiveDate: p.chosenEffectiveDate,
      requestedAt: p.requestedAt ? new Date(p.requestedAt) : null,
    },
    (w) => ({
      fileId,
      fileName: w.fileName,
      batchNumber: w.batchNumber,
      fileIdModifier: w.fileIdModifier,
      effectiveDate: w.effectiveDate,
      entryCount: w.entryCount,
      totalCreditCents: w.totalCreditCents,
      totalDebitCents: w.totalDebitCents,
      balanced: w.balanced,
      // The credits come first in the file, in the vendors' order: entry i is vendor i.
      vendors: planned.vendors.map((v, i) => ({ ...v, traceNumber: w.traceNumbers[i] })),
      skippedBills: planned.skippedBills,
      ...(planned.heldVendors.length > 0 ? { heldVendors: planned.heldVendors } : {}),
      sameDay: w.sameDay,
      ...(w.dateNote ? { dateNote: w.dateNote } : {}),
      window: w.window,
    }),
    ctx,
  );
  switch (outcome.kind) {
    case 'company':
      return fail([outcome.problem]);
    case 'refused':
      return fail([
        writeProblem(
          outcome.error,
          planned.credits.map((c) => c.name),
        ),
      ]);
    case 'file-limit':
      // A rule, not a fault: the file waits for the next banking day, which asks for it again by itself.
      return fail([
        {
          kind: 'file-limit',
          vendorName: null,
          message: `${outcome.companyName} has sent the ${outcome.modifiers} NACHA files its bank takes in one day: this file will be made on ${outcome.waitUntil}, with no one needing to act, and paid from then on`,
          waitUntil: outcome.waitUntil,
        },
      ]);
    case 'written':
      await report({
        type: 'RecordNachaGenerated',
        version,
        file: outcome.summary,
        now: new Date().toISOString(),
      });
      return 'generated';
  }
}
