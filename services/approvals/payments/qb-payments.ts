// QuickBooks bill payments after PAYMENT_COMPLETED: one BillPayment per bill of the file the bank
// took, of exactly what the file paid for that bill, from the company's payment bank account, each
// recorded on the approval's stream. A bill the file left out is never paid here; a bill whose open
// balance in QuickBooks is now below what the file paid fails, named, and nothing else is recorded
// (paid-amounts.ts).
// Exactly once: before paying, the bill's linked payments are read, and one that carries this
// approval's key for the bill (an earlier run whose answer was lost) is recorded, not paid again.
// The requestid carries the run's attempt: Intuit replays its first answer for a requestid, a refusal
// included, so a retry after a refusal since fixed (a vendor made active again) can succeed, while a
// job run again within one attempt is still answered with that attempt's first payment.
import { createHash } from 'node:crypto';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import type { QbAccess } from '../../app/quickbooks-access.js';
import type { QbBill } from '../../quickbooks/bills.js';
import { cleanQbText } from '../../quickbooks/clean.js';
import { QbApiError, type QbBillPayment, QbThrottledError } from '../../quickbooks/client.js';
import { qbStringList } from '../../quickbooks/query-text.js';
import { AppError } from '../../shared/errors.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { billPaymentStep } from './paid-amounts.js';
import { billsAtTheBank, billsToRecord } from './payment-decider.js';
import { returnedBillIds } from './returns.js';

/** The key of one bill of one approval (43 characters): written on its BillPayment, the same on every run. */
export function qbPaymentRequestId(approvalId: string, billId: string): string {
  const digest = createHash('sha256')
    .update(`billflow-billpayment\0${approvalId}\0${billId}`)
    .digest('base64url');
  return `bf-${digest.slice(0, 40)}`;
}

/** Intuit's requestid for one attempt (≤ 50 characters): the key alone on the first, the attempt after. */
export const qbPaymentAttemptRequestId = (approvalId: string, billId: string, attempt: number) =>
  attempt <= 1
    ? qbPaymentRequestId(approvalId, billId)
    : `${qbPaymentRequestId(approvalId, billId)}-${attempt}`;

/** Written on the BillPayment: how a later run knows a payment of the bill is Billflow's own. */
export const paymentNote = (requestId: string) => `Billflow bill payment ${requestId}`;

export const NOT_CONNECTED_MESSAGE =
  'The company is not connected to QuickBooks: no bill payment was recorded there';
export const NO_PAYMENT_ACCOUNT =
  'The company has no payment account: choose its QuickBooks bank account in the company settings, then retry';

/** What the job passes: one command id per result (the job's id and the bill), the run's context. */
export interface PayBillsRun {
  approvalId: string;
  attempt: number;
  /** A command id unique to this job and `part` (a bill id, or 'finish'). */
  commandId: (part: string) => string;
  ctx: CommandContext;
}

type Outcome = { billPaymentId: string } | { error: string };

const plural = (n: number) => `${n} bill${n === 1 ? '' : 's'}`;

/** The run's closing message; the decider sets the status from the bills paid over every run. */
export function finishMessage(paid: number, total: number, failed: number): string {
  if (paid === total) return `All ${plural(total)} paid in QuickBooks`;
  if (paid === 0) return `No bill could be paid in QuickBooks: ${plural(failed)} failed`;
  return `${paid} of ${plural(total)} paid in QuickBooks; ${failed} failed: retry to pay the rest`;
}

/** Bills with a result in this run already (a run started again after a crash or a throttle). */
async function resultsOfRun(app: AppServices, approvalId: string, attempt: number) {
  const { events } = await app.store.readStream(approvalStreamId(approvalId));
  const done = new Set<string>();
  let billIds: string[] = [];
  for (const e of events) {
    const d = e.data as { attempt?: number; billId?: string; billIds?: string[] };
    if (d.attempt !== attempt) continue;
    if (e.type === 'QbPaymentSyncStarted') billIds = d.billIds ?? [];
    if ((e.type === 'QbBillPaid' || e.type === 'QbBillPaymentFailed') && d.billId) done.add(d.billId);
  }
  return { billIds, done };
}

async function readBills(access: QbAccess, ids: string[]) {
  const out = new Map<string, QbBill>();
  for (let i = 0; i < ids.length; i += 100) {
    const r = await access.client.query<{ Bill?: QbBill[] }>(
      access.isSandbox,
      access.realmId,
      access.auth,
      `select * from Bill where Id in (${qbStringList(ids.slice(i, i + 100))}) MAXRESULTS 1000`,
    );
    for (const b of r.QueryResponse.Bill ?? []) out.set(String(b.Id), b);
  }
  return out;
}

/** A write with the call's token, renewed once on a 401 (createBillPayment takes a plain token). */
async function withToken<T>(access: QbAccess, call: (token: string) => Promise<T>): Promise<T> {
  try {
    return await call(access.auth.token);
  } catch (err) {
    if (!(err instanceof QbApiError) || err.status !== 401) throw err;
    return call(await access.auth.renew());
  }
}

/**
 * The BillPayments QuickBooks links to the bill: the one this approval made (its note carries the
 * bill's key), with what it recorded for the bill, and the others' ids.
 */
async function linkedPayments(access: QbAccess, bill: QbBill, key: string) {
  const linked = ((bill as { LinkedTxn?: Array<{ TxnId?: string; TxnType?: string }> }).LinkedTxn ?? [])
    .filter((t) => t.TxnType === 'BillPaymentCheck' || t.TxnType === 'BillPaymentCreditCard')
    .map((t) => String(t.TxnId));
  const others: string[] = [];
  for (const id of linked) {
    const p = await access.client.get<{ BillPayment: QbBillPayment }>(
      access.isSandbox,
      access.realmId,
      access.auth,
      `billpayment/${encodeURIComponent(id)}`,
    );
    const payment = p.BillPayment;
    if (typeof payment.PrivateNote === 'string' && payment.PrivateNote.includes(paymentNote(key))) {
      const line = (payment.Line ?? []).find((l) =>
        (l.LinkedTxn ?? []).some((t) => t.TxnType === 'Bill' && String(t.TxnId) === String(bill.Id)),
      );
      return { ours: { id: String(payment.Id), amount: Number(line?.Amount ?? payment.TotalAmt) }, others };
    }
    others.push(id);
  }
  return { ours: null, others };
}

/** Pays exactly `cents` of the bill under the attempt's requestid; the amount QuickBooks recorded. */
async function payOne(
  access: QbAccess,
  bill: QbBill,
  cents: number,
  bankAccount: string,
  requestId: string,
): Promise<{ billPaymentId: string; amount: number }> {
  const dollars = cents / 100;
  const payment = await withToken(access, (token) =>
    access.client.createBillPayment(
      access.isSandbox,
      access.realmId,
      token,
      {
        VendorRef: { value: bill.VendorRef.value },
        // The payment account is a bank account (services/companies/payment-account.ts): Intuit pays
        // from a bank account by Check; CreditCard draws on a credit-card account.
        PayType: 'Check',
        CheckPayment: { BankAccountRef: { value: bankAccount } },
        TotalAmt: dollars,
        PrivateNote: paymentNote(requestId),
        Line: [{ Amount: dollars, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }],
      },
      requestId,
    ),
  );
  const recorded = Number(payment.TotalAmt);
  return { billPaymentId: payment.Id, amount: Number.isFinite(recorded) ? recorded : dollars };
}

/** Why a call failed, as the card shows it; a throttle or an unknown failure is the job's to handle. */
function failureText(err: unknown): string {
  if (err instanceof QbThrottledError) throw err;
  if (err instanceof QbApiError) return `QuickBooks: ${err.message}`;
  if (err instanceof AppError) return err.message;
  throw err;
}

/**
 * One run (attempt) of the sync: pays the run's bills not yet paid nor already tried in this run,
 * records each, then finishes the run. A QbThrottledError goes up (the job waits it out and runs
 * again; the bills recorded are skipped then). Returns what it did, for the job's log.
 */
export async function payApprovalBills(app: AppServices, run: PayBillsRun) {
  const { approvalId, attempt, ctx } = run;
  const streamId = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  const sync = state.payment.qbSync;
  if (sync.attempt !== attempt || sync.status !== 'SYNCING') return { ran: false as const };
  const companyId = state.companyId!;
  const { billIds, done } = await resultsOfRun(app, approvalId, attempt);
  const paidBefore = new Set(sync.paidBillIds);
  // A bill whose entry the bank returned since the run started is not recorded as paid.
  const returned = new Set(await returnedBillIds(app, state.payment));
  const todo = billIds.filter((id) => !paidBefore.has(id) && !done.has(id) && !returned.has(id));
  const now = () => new Date().toISOString();
  const finish = (skipped: boolean, message: string) =>
    app.commands.handle(
      approvalDecider,
      streamId,
      { type: 'FinishQbSync', attempt, skipped, message, returnedBillIds: [...returned], now: now() },
      { ...ctx, commandId: run.commandId('finish') },
    );

  let access: QbAccess | null = null;
  let common: string | null = null;
  try {
    access = await app.quickbooks.access(companyId, ctx);
  } catch (err) {
    if (err instanceof AppError && err.code === 'CONFLICT' && /not connected/i.test(err.message)) {
      await finish(true, NOT_CONNECTED_MESSAGE);
      return { ran: true as const, skipped: true, paid: 0, failed: 0 };
    }
    common = failureText(err);
  }
  const company = await app.db
    .selectFrom('companies')
    .select('qb_payment_account_reference')
    .where('id', '=', companyId)
    .executeTakeFirst();
  const bankAccount = company?.qb_payment_account_reference ?? null;
  if (common === null && !bankAccount) common = NO_PAYMENT_ACCOUNT;

  let fresh = new Map<string, QbBill>();
  if (common === null && access && todo.length > 0) {
    try {
      fresh = await readBills(access, todo);
    } catch (err) {
      common = failureText(err);
    }
  }

  // What the file the bank took paid per bill: the only sums recorded.
  const atTheBank = new Map(billsAtTheBank(state.payment).map((b) => [b.billId, b.amountCents]));
  let paid = 0;
  let failed = 0;
  for (const billId of todo) {
    const started = Date.now();
    const snap = state.bills.find((b) => b.Id === billId);
    const bill = fresh.get(billId);
    const fileCents = atTheBank.get(billId) ?? null;
    let amount = fileCents !== null ? fileCents / 100 : (snap?.Balance ?? 0);
    let outcome: Outcome;
    if (common !== null) outcome = { error: common };
    else if (!bill) outcome = { error: 'Not found in QuickBooks (deleted there?): not paid' };
    else {
      try {
        const key = qbPaymentRequestId(approvalId, billId);
        const linked = await linkedPayments(access!, bill, key);
        const step = billPaymentStep({
          fileCents,
          balance: bill.Balance,
          ours: linked.ours?.id ?? null,
          othersPayments: linked.others,
        });
        if ('found' in step) {
          outcome = { billPaymentId: step.found };
          amount = linked.ours!.amount;
        } else if ('error' in step) outcome = { error: step.error };
        else {
          const r = await payOne(
            access!,
            bill,
            step.pay,
            bankAccount!,
            qbPaymentAttemptRequestId(approvalId, billId, attempt),
          );
          outcome = { billPaymentId: r.billPaymentId };
          amount = r.amount;
        }
      } catch (err) {
        outcome = { error: failureText(err) };
      }
    }
    await recordResult(app, state, run, {
      billId,
      docNumber: cleanQbText(bill?.DocNumber, 40) ?? snap?.DocNumber ?? null,
      vendorName: cleanQbText(bill?.VendorRef.name, 255) ?? snap?.VendorRef.name ?? null,
      amount,
      durationMs: Date.now() - started,
      outcome,
    });
    if ('billPaymentId' in outcome) paid++;
    else failed++;
  }
  const after = await app.commands.load(approvalDecider, streamId);
  const paidTotal = after.state.payment.qbSync.paidBillIds.length;
  const total = billsToRecord(after.state.payment, returned).length;
  await finish(false, finishMessage(paidTotal, total, total - paidTotal));
  return { ran: true as const, skipped: false, paid, failed };
}

async function recordResult(
  app: AppServices,
  state: ApprovalState,
  run: PayBillsRun,
  r: {
    billId: string;
    docNumber: string | null;
    vendorName: string | null;
    amount: number;
    durationMs: number;
    outcome: Outcome;
  },
) {
  await app.commands.handle(
    approvalDecider,
    approvalStreamId(state.approvalId!),
    {
      type: 'RecordQbBillResult',
      attempt: run.attempt,
      ...r,
      amount: Math.round(r.amount * 100) / 100,
      durationMs: Math.max(0, Math.round(r.durationMs)),
      now: new Date().toISOString(),
    },
    { ...run.ctx, commandId: run.commandId(r.billId) },
  );
}

/** The first run after the payment (the process manager's start-qb-sync): once. */
export async function startQbSync(app: AppServices, approvalId: string, ctx: CommandContext) {
  const streamId = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  return app.commands.handle(
    approvalDecider,
    streamId,
    {
      type: 'StartQbSync',
      retry: false,
      byUserId: null,
      returnedBillIds: await returnedBillIds(app, state.payment),
      now: new Date().toISOString(),
    },
    ctx,
  );
}
