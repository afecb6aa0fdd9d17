// The books match the bank, as a property over 1,000 random histories: approved bills, balances edited
// in QuickBooks (lower, higher, 0, below zero, not a number, deleted), files regenerated, the last one
// uploaded, balances edited again, answers lost, retries. The approval's real decider, the file's real
// plan (planFileBills) and the sync's real rule (billPaymentStep) run against a QuickBooks kept in
// memory. Whatever happens: no bill the file left out is paid, each BillPayment is exactly what the
// file paid for its bill, and once every balance allows it, the BillPayments sum to the file's credits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../../schema/approvals/events.js';
import { billSnapshot } from '../../../test/support/bills.js';
import { type ApprovalCommand, type ApprovalState, approvalDecider } from '../approval-decider.js';
import { billPaymentStep, planFileBills } from './paid-amounts.js';
import { billsAtTheBank } from './payment-decider.js';

const base = { approvalId: 'p1', companyId: 4 };
const at = '2026-12-01T10:00:00.000Z';

/** What QuickBooks may answer for a bill's balance after a person's edit, or the bill deleted. */
const balanceEdit = (approved: number) =>
  fc.oneof(
    fc.constant<unknown>(approved),
    fc.integer({ min: 0, max: Math.round(approved * 100) }).map((c) => c / 100),
    fc.integer({ min: 1, max: 500_000 }).map((c) => approved + c / 100),
    fc.constant<unknown>(0),
    fc.constant<unknown>(-5),
    fc.constant<unknown>('abc'),
    fc.constant<unknown>(String(approved)),
    fc.constant<unknown>(undefined),
  );

const history = fc
  .array(
    fc.record({ cents: fc.integer({ min: 1, max: 5_000_000 }), vendor: fc.constantFrom('7', '8', '9') }),
    { minLength: 1, maxLength: 6 },
  )
  .chain((bills) => {
    const snaps = bills.map((b, i) =>
      billSnapshot(String(100 + i), b.cents / 100, {
        VendorRef: { value: b.vendor, name: `Vendor ${b.vendor}` },
      }),
    );
    const edits = fc.array(fc.tuple(...snaps.map((s) => balanceEdit(s.Balance))), {
      minLength: 1,
      maxLength: 4,
    });
    return fc.record({
      snaps: fc.constant(snaps),
      approvedMask: fc.array(fc.boolean(), { minLength: snaps.length, maxLength: snaps.length }),
      generations: edits,
      afterUpload: fc.tuple(...snaps.map((s) => balanceEdit(s.Balance))),
      lostAnswers: fc.array(fc.boolean(), { minLength: snaps.length, maxLength: snaps.length }),
      retries: fc.integer({ min: 0, max: 2 }),
    });
  });

interface QbPayment {
  id: string;
  billId: string;
  cents: number;
  note: string;
}

function fold(events: ApprovalEvent[]): ApprovalState {
  return events.reduce((s, e) => approvalDecider.evolve(s, e), approvalDecider.initialState());
}

describe('the QuickBooks bill payments match the uploaded file', () => {
  it('holds over 1,000 random histories of balances, edits, regenerations, lost answers and retries', () => {
    fc.assert(
      fc.property(history, (h) => {
        const approvedIds = h.snaps.filter((_, i) => h.approvedMask[i]).map((s) => s.Id);
        fc.pre(approvedIds.length > 0);
        const events: ApprovalEvent[] = [
          {
            type: 'ApprovalCreated',
            data: {
              ...base,
              priority: 'HIGH',
              managerId: 3,
              createdBy: 7,
              bills: h.snaps,
              vendorContacts: [],
              recipients: ['ap@client.example'],
              confirmedDuplicates: [],
              expiresAt: '2026-12-08T10:00:00.000Z',
              at,
            },
          },
          {
            type: 'ApprovalApproved',
            data: { ...base, approvedBillIds: approvedIds, byUserId: 8, firstApprovedBy: null, at },
          },
        ];
        const run = (command: ApprovalCommand) => {
          const out = approvalDecider.decide(command, fold(events)) as ApprovalEvent[];
          events.push(...out);
          return out;
        };
        run({ type: 'RequestNacha', reason: 'approved', byUserId: null, now: at });
        const approved = h.snaps.filter((s) => approvedIds.includes(s.Id));
        let generated = false;
        let lastPlan: ReturnType<typeof planFileBills> | null = null;
        for (const [n, edit] of h.generations.entries()) {
          if (n > 0) run({ type: 'RequestNacha', reason: 'regenerate', byUserId: 8, now: at });
          const balances = new Map<string, unknown>();
          h.snaps.forEach((s, i) => {
            if (edit[i] !== undefined) balances.set(s.Id, edit[i]);
          });
          const plan = planFileBills(approved, balances);
          const version = fold(events).payment.nachaVersion;
          if (plan.vendors.size === 0) {
            run({ type: 'RecordNachaFailed', version, reason: 'nothing', problems: [], now: at });
            continue;
          }
          lastPlan = plan;
          generated = true;
          const vendors = [...plan.vendors].map(([qbVendorId, v]) => ({
            qbVendorId,
            name: `Vendor ${qbVendorId}`,
            amountCents: v.cents,
            accountLast4: '1234',
            billIds: v.bills.map((b) => b.billId),
            bills: v.bills,
          }));
          run({
            type: 'RecordNachaGenerated',
            version,
            file: {
              fileId: `f${version}`,
              fileName: `ACH_${version}.txt`,
              batchNumber: 1,
              fileIdModifier: 'A',
              effectiveDate: '2026-12-02',
              entryCount: vendors.length,
              totalCreditCents: vendors.reduce((s, v) => s + v.amountCents, 0),
              totalDebitCents: 0,
              balanced: false,
              vendors,
              skippedBills: plan.skippedBills,
            },
            now: at,
          });
        }
        // Only a generated latest version reaches the bank.
        fc.pre(generated && fold(events).payment.nacha === 'GENERATED');
        run({ type: 'MarkBankUploaded', byUserId: 8, link: null, now: at });
        run({ type: 'MarkPaymentCompleted', byUserId: 8, link: null, now: at });
        const fileCredits = [...lastPlan!.vendors.values()].reduce((s, v) => s + v.cents, 0);
        const fileCents = new Map(
          [...lastPlan!.vendors.values()].flatMap((v) =>
            v.bills.map((b) => [b.billId, b.amountCents] as const),
          ),
        );
        expect(
          billsAtTheBank(fold(events).payment)
            .map((b) => b.billId)
            .sort(),
        ).toEqual([...fileCents.keys()].sort());

        // QuickBooks after the upload: balances as edited (a deleted bill keeps its approved balance here).
        const qbBalance = new Map<string, unknown>(
          h.snaps.map((s, i) => [s.Id, h.afterUpload[i] === undefined ? s.Balance : h.afterUpload[i]]),
        );
        const qbPayments: QbPayment[] = [];
        const lost = new Set(h.snaps.filter((_, i) => h.lostAnswers[i]).map((s) => s.Id));
        const syncRun = (attempt: number) => {
          const started = events.findLast((e) => e.type === 'QbPaymentSyncStarted')?.data as
            | { billIds: string[] }
            | undefined;
          const toPay = fold(events).payment.qbSync.status === 'SYNCING' ? (started?.billIds ?? []) : [];
          for (const billId of toPay) {
            const ours = qbPayments.find((p) => p.billId === billId && p.note === `key:${billId}`);
            const step = billPaymentStep({
              fileCents: fileCents.get(billId) ?? null,
              balance: qbBalance.get(billId),
              ours: ours?.id ?? null,
              othersPayments: [],
            });
            let outcome: { billPaymentId: string } | { error: string };
            let amount = (fileCents.get(billId) ?? 0) / 100;
            if ('pay' in step) {
              const id = `bp${qbPayments.length + 1}`;
              qbPayments.push({ id, billId, cents: step.pay, note: `key:${billId}` });
              qbBalance.set(billId, Math.round(Number(qbBalance.get(billId)) * 100 - step.pay) / 100);
              // The first answer for this bill may be lost: the payment stands, the run sees a failure.
              if (lost.delete(billId)) outcome = { error: 'QuickBooks did not answer the payment' };
              else outcome = { billPaymentId: id };
            } else if ('found' in step) {
              outcome = { billPaymentId: step.found };
              amount = ours!.cents / 100;
            } else outcome = { error: step.error };
            run({
              type: 'RecordQbBillResult',
              attempt,
              billId,
              docNumber: null,
              vendorName: null,
              amount,
              durationMs: 1,
              outcome,
              now: at,
            });
          }
          run({
            type: 'FinishQbSync',
            returnedBillIds: [],
            attempt,
            skipped: false,
            message: 'done',
            now: at,
          });
        };
        run({ type: 'StartQbSync', returnedBillIds: [], retry: false, byUserId: null, now: at });
        syncRun(1);
        for (let r = 0; r < h.retries; r++) {
          const s = fold(events).payment.qbSync;
          if (s.status !== 'FAILED' && s.status !== 'PARTIAL_SUCCESS') break;
          run({ type: 'StartQbSync', returnedBillIds: [], retry: true, byUserId: 8, now: at });
          syncRun(s.attempt + 1);
        }
        // Someone puts every balance back; retries finish the job.
        for (const s of h.snaps) qbBalance.set(s.Id, s.Balance);
        for (let r = 0; r < 2; r++) {
          const s = fold(events).payment.qbSync;
          if (s.status !== 'FAILED' && s.status !== 'PARTIAL_SUCCESS') break;
          run({ type: 'StartQbSync', returnedBillIds: [], retry: true, byUserId: 8, now: at });
          syncRun(s.attempt + 1);
        }

        // No bill the file left out is paid; each payment is what the file paid for its bill, once.
        for (const p of qbPayments) expect(p.cents).toBe(fileCents.get(p.billId));
        expect(new Set(qbPayments.map((p) => p.billId)).size).toBe(qbPayments.length);
        // Every balance allows it now: the payments sum to the file's credits, and the sync says SUCCESS.
        expect(qbPayments.reduce((s, p) => s + p.cents, 0)).toBe(fileCredits);
        const state = fold(events);
        expect(state.payment.qbSync.status).toBe('SUCCESS');
        const recorded = events
          .filter((e): e is Extract<ApprovalEvent, { type: 'QbBillPaid' }> => e.type === 'QbBillPaid')
          .reduce((s, e) => s + Math.round(e.data.amount * 100), 0);
        expect(recorded).toBe(fileCredits);
      }),
      { numRuns: 1000 },
    );
  });
});
