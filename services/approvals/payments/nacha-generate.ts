// Generating an approval's payment file (the `generate-nacha` job; docs/ARCHITECTURE.md "Payments"):
// one credit per vendor, the sum of its approved bills' open balances (afresh from QuickBooks where
// the company is connected, never above the approved balance; a bill paid there, or whose balance
// there is not a valid amount, is left out and named), effective the date chosen if it still holds,
// else the next banking day (today in a Same-Day window: effective-date.ts), credits only (220) or
// balanced (200) per the company. The file is one batch of the company's shared file for its cut-off
// window (decision 0040: that file's header, so its modifier and name, and its batch number). The
// file is validated by the library before it is kept (an invalid file is never stored), stored
// encrypted with the company's key, and reported to the approval with RecordNachaGenerated; what
// stops it is reported with RecordNachaFailed, each problem named.
//
// Idempotent: the file id derives from the approval and the request's version, its modifier is taken
// once per file id, and the stored row is what is reported, so a job run again (a retry, a crash
// after storing) reports the very same file; the decider drops an outcome already recorded.
import type { NachaProblem } from '../../../schema/approvals/payment-events.js';
import { type CommandContext, eventIdFor } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import { nextBankingDay } from '../../nacha/banking-day.js';
import {
  achFileDay,
  buildVendorPaymentFile,
  type NachaCompany,
  type VendorCredit,
} from '../../nacha/payment-file.js';
import { AchWriteError, MAX_ENTRY_AMOUNT_CENTS } from '../../nacha/records.js';
import { validateAchFile } from '../../nacha/validator.js';
import { QbApiError, QbGrantError, QbThrottledError } from '../../quickbooks/client.js';
import { AppError } from '../../shared/errors.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { bankingFingerprint, fingerprintKey } from './approved-banking.js';
import { bankingHold } from './banking-holds.js';
import { fileEffectiveDate, paymentClock, SAME_DAY_MARKER } from './effective-date.js';
import { FILE_ID_MODIFIERS, FileLimitReached, takeFileIdModifier } from './file-modifier.js';
import { findNachaFile, storeNachaFile } from './nacha-files.js';
import {
  companyForNacha,
  type PayableVendor,
  qbBalances,
  sameDayAchOf,
  vendorsForNacha,
  vendorsOf,
} from './nacha-sources.js';
import { planFileBills } from './paid-amounts.js';
import type { PaymentCommand } from './payment-decider.js';
import { paymentAccountPrerequisites } from './prerequisites.js';

export type GeneratedFile = Extract<PaymentCommand, { type: 'RecordNachaGenerated' }>['file'];

/** The payment file of one request: the same id however often the request is worked on. */
export const paymentFileId = (approvalId: string, version: number) =>
  eventIdFor(`nacha-file:${approvalId}:${version}`, 0);

/** 'YYYYMMDD' → 'YYYY-MM-DD'. */
export const isoDay = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

/** The file's text validated by the library: never kept when it breaks a rule. */
export function assertValidFile(text: string) {
  const issues = validateAchFile(text);
  if (issues.length > 0)
    throw new Error(
      `the NACHA library refused the file it wrote: ${issues
        .slice(0, 5)
        .map((i) => `line ${i.line} ${i.record}.${i.field}: ${i.message}`)
        .join('; ')}`,
    );
}

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
      company: NachaCompany;
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
    companyForNacha(app, companyId),
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
  return { credits, vendors, skippedBills, heldVendors: holds(true), company: company.company };
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
  const stored = await findNachaFile<GeneratedFile>(app, fileId);
  if (stored) {
    await report({
      type: 'RecordNachaGenerated',
      version,
      file: stored.summary,
      now: new Date().toISOString(),
    });
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
  const [planned, sameDayAch] = await Promise.all([
    plan(app, state, ctx),
    sameDayAchOf(app, state.companyId!),
  ]);
  if ('problems' in planned) return fail(planned.problems);
  const { company } = planned;
  const createdAt = paymentClock.now();
  const creditCents = planned.credits.map((c) => c.amountCents);
  // A balanced file's offsetting debit is an entry too: Same-Day's per-payment limit holds for it.
  const total = creditCents.reduce((a, b) => a + b, 0);
  const dated = fileEffectiveDate({
    chosen: p.chosenEffectiveDate,
    now: createdAt,
    sameDayAch,
    entryCents: company.balancedFile ? [...creditCents, total] : creditCents,
  });
  const { effectiveDate } = dated;
  const build = (fileIdModifier: string, at: Date, firstTraceSequence?: number) =>
    buildVendorPaymentFile({
      company,
      credits: planned.credits,
      effectiveDate,
      ...(dated.sameDay ? { companyDescriptiveDate: SAME_DAY_MARKER } : {}),
      fileIdModifier,
      createdAt: at,
      firstTraceSequence,
    });
  // A file the writer refuses takes none of the day's 36 file id modifiers: it is built once on a
  // trial modifier first (the modifier changes one character of the header, never a refusal).
  try {
    build('A', createdAt);
  } catch (err) {
    if (!(err instanceof AchWriteError)) throw err;
    return fail([
      writeProblem(
        err,
        planned.credits.map((c) => c.name),
      ),
    ]);
  }
  // The file is a batch of the company's shared file for its cut-off window (decision 0040): the
  // window's file takes one of the day's modifiers, however many approvals it carries.
  const place = await app.achWindows.place(
    {
      companyId: state.companyId!,
      approvalId,
      fileId,
      version,
      sameDay: dated.sameDay,
      requestedAt: new Date(p.requestedAt ?? createdAt),
    },
    ctx,
  );
  const day = achFileDay(place.createdAt);
  let fileIdModifier: string;
  try {
    fileIdModifier = await takeFileIdModifier(app, state.companyId!, day, place.windowFileId, ctx);
  } catch (err) {
    // A rule, not a fault: the file waits for the next banking day, which asks for it again by itself.
    if (!(err instanceof FileLimitReached)) throw err;
    const waitUntil = nextBankingDay(isoDay(day));
    return fail([
      {
        kind: 'file-limit',
        vendorName: null,
        message: `${company.companyName} has sent the ${FILE_ID_MODIFIERS.length} NACHA files its bank takes in one day: this file will be made on ${waitUntil}, with no one needing to act, and paid from then on`,
        waitUntil,
      },
    ]);
  }
  // Its traces are taken at the ODFI only now, after the file's modifier: a file that waits takes none.
  const entries = planned.credits.length + (company.balancedFile ? 1 : 0);
  const firstTrace = await app.achTraces.reserve(
    company.bankRoutingNumber.trim().slice(0, 8),
    fileId,
    entries,
    ctx,
  );
  const built = build(fileIdModifier, place.createdAt, firstTrace);
  assertValidFile(built.text);
  const file: GeneratedFile = {
    fileId,
    fileName: built.fileName,
    batchNumber: place.batch,
    fileIdModifier,
    effectiveDate,
    entryCount: built.entryCount,
    totalCreditCents: built.totalCreditCents,
    totalDebitCents: built.totalDebitCents,
    balanced: company.balancedFile,
    // The credits come first in the file, in the vendors' order: entry i is vendor i.
    vendors: planned.vendors.map((v, i) => ({ ...v, traceNumber: built.traceNumbers[i] })),
    skippedBills: planned.skippedBills,
    ...(planned.heldVendors.length > 0 ? { heldVendors: planned.heldVendors } : {}),
    sameDay: dated.sameDay,
    ...(dated.note ? { dateNote: dated.note } : {}),
    window: { at: place.windowAt, file: place.file, via: place.via },
  };
  const kept = await storeNachaFile<GeneratedFile>(app, {
    fileId,
    approvalId,
    companyId: state.companyId!,
    kind: 'payment',
    version,
    fileName: built.fileName,
    summary: file,
    text: built.text,
  });
  await report({ type: 'RecordNachaGenerated', version, file: kept.summary, now: new Date().toISOString() });
  return 'generated';
}
