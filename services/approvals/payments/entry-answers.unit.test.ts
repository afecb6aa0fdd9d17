// What the bank did with an approval's entries, read from the payments module's entry events (decision
// 0041): the approvals row counts each returned entry once (RETURNED when every entry of the file came
// back) and marks the voided QuickBooks payments; the history tells each return, void and correction
// once, with the bills' document numbers; an approval that recorded a return on its own stream before
// the move is told by that record, not twice.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  emptyPaymentColumns,
  evolveEntryAnswerRow,
  evolvePaymentRow,
} from '../../../projections/approvals/approval-payments.js';
import type { ApprovalsTable } from '../../../projections/approvals/tables.js';
import type { ApprovalEvent } from '../../../schema/approvals/events.js';
import type { PaymentsEvent } from '../../../schema/payments/events.js';
import { approvalCreated } from '../../../test/support/bills.js';
import { storedEvents } from '../../../test/support/stored-events.js';
import { entrySteps, entryStreamsOf } from './entry-history.js';

const at = '2026-12-07T15:00:00.000Z';
const ids = { approvalId: 'a1', companyId: 2 };
const T1 = '021000020000001';
const T2 = '021000020000002';
const sha = 'c'.repeat(64);
type E<T extends PaymentsEvent['type']> = Extract<PaymentsEvent, { type: T }>;

const returned = (traceNumber: string, more: Partial<E<'PaymentEntryReturned'>['data']> = {}) =>
  ({
    type: 'PaymentEntryReturned',
    data: {
      ...ids,
      traceNumber,
      qbVendorId: '55',
      vendorName: 'Acme Paper',
      amountCents: 40_000,
      accountLast4: '0003',
      fileName: 'ACH_20261207_A_DINER.txt',
      returnCode: 'R03',
      description: 'No Account/Unable to Locate Account',
      action: 'block-account',
      bills: [{ billId: '10', amountCents: 40_000 }],
      fileEntryCount: 2,
      inboundFileId: sha,
      at,
      ...more,
    },
  }) satisfies E<'PaymentEntryReturned'>;
const voided = (traceNumber: string) =>
  ({
    type: 'PaymentEntryQbVoided',
    data: {
      ...ids,
      traceNumber,
      vendorName: 'Acme Paper',
      bills: [{ billId: '10', docNumber: 'INV-10', billPaymentId: 'bp-7', amount: 400 }],
      at,
    },
  }) satisfies E<'PaymentEntryQbVoided'>;

const event = storedEvents(at);
const stored = (streamId: string, e: { type: string; data: unknown }, userId: string | null = null) =>
  event(streamId, e, { userId, commandId: randomUUID() });

const row = (): ApprovalsTable =>
  ({
    id: 'a1',
    company_id: 2,
    status: 'PAYMENT_COMPLETED',
    updated_at: new Date(at),
    ...emptyPaymentColumns(),
    qb_sync_items: [
      {
        billId: '10',
        docNumber: 'INV-10',
        vendorName: 'Acme Paper',
        amount: 400,
        billPaymentId: 'bp-7',
        duration: 10,
        error: null,
        success: true,
      },
    ],
  }) as unknown as ApprovalsTable;

describe("the approvals row from the entries' answers", () => {
  it('counts each returned entry once: partly, then every entry of the file back', () => {
    const one = evolveEntryAnswerRow(row(), returned(T1));
    expect(one).toMatchObject({
      bank_payment_state: 'PARTLY_RETURNED',
      returned_traces: [T1],
      returned_bill_ids: ['10'],
    });
    const both = evolveEntryAnswerRow(one, returned(T2, { bills: [{ billId: '11', amountCents: 100 }] }));
    expect(both).toMatchObject({ bank_payment_state: 'RETURNED', returned_bill_ids: ['10', '11'] });
    // The approval's own record of the same return (made before the move) counts it once.
    const legacy = {
      type: 'PaymentReturnRecorded',
      data: {
        ...returned(T1).data,
        bills: [{ billId: '10', docNumber: 'INV-10', amountCents: 40_000 }],
        bankPaymentState: 'PARTLY_RETURNED',
        returnedAt: at,
      },
    } as unknown as ApprovalEvent;
    expect(evolvePaymentRow(one, legacy as never)).toMatchObject({
      returned_traces: [T1],
      returned_bill_ids: ['10'],
    });
  });

  it('marks the voided QuickBooks payment on its item', () => {
    const after = evolveEntryAnswerRow(evolveEntryAnswerRow(row(), returned(T1)), voided(T1));
    expect(after.qb_sync_items[0].error).toBe('Payment bp-7 voided: the bank returned the payment');
  });
});

describe("the history from the entries' streams", () => {
  const created = stored('approval-a1', approvalCreated({ ...ids, createdBy: 7, at }));
  const generated = stored('approval-a1', {
    type: 'NachaFileGenerated',
    data: {
      ...ids,
      version: 1,
      fileId: 'f1',
      fileName: 'ACH_20261207_A_DINER.txt',
      batchNumber: 1,
      fileIdModifier: 'A',
      effectiveDate: '2026-12-08',
      entryCount: 2,
      totalCreditCents: 40_100,
      totalDebitCents: 0,
      balanced: false,
      vendors: [
        {
          qbVendorId: '55',
          name: 'Acme Paper',
          amountCents: 40_000,
          accountLast4: '0003',
          billIds: ['10'],
          traceNumber: T1,
        },
        { qbVendorId: '56', name: 'Ink Co', amountCents: 100, accountLast4: '0101', billIds: ['11'] },
      ],
      skippedBills: [],
      at,
    },
  });

  it("finds the streams of the file's traced entries", () => {
    expect(entryStreamsOf([created, generated])).toEqual([`achentry-${T1}`]);
  });

  it('tells a return (bills by document number), its void and a correction, each by who acted', () => {
    const correction = stored(`achentry-${T1}`, {
      type: 'PaymentEntryCorrectionReceived',
      data: {
        ...ids,
        traceNumber: T1,
        qbVendorId: '55',
        vendorName: 'Acme Paper',
        changeCode: 'C01',
        description: 'Incorrect DFI Account Number',
        correctedAccountNumber: null,
        correctedRoutingNumber: null,
        correctedAccountLast4: '0102',
        correctedRoutingLast4: null,
        correctedAccountType: null,
        correctedName: null,
        dueBy: '2026-12-15',
        inboundFileId: sha,
        at,
      },
    });
    const steps = entrySteps(
      [created, generated],
      [stored(`achentry-${T1}`, returned(T1), '1'), stored(`achentry-${T1}`, voided(T1)), correction],
      new Map([[1, 'Ada Admin']]),
    );
    expect(steps.map((s) => [s.action, s.userName])).toEqual([
      ['Payment to Acme Paper returned by the bank', 'Ada Admin'],
      ['QuickBooks payment for Acme Paper voided', 'System'],
      ["The bank corrected Acme Paper's bank details", 'System'],
    ]);
    expect(steps[0].details).toBe(
      'R03 No Account/Unable to Locate Account: $400.00 to the account ending 0003 (ACH_20261207_A_DINER.txt); bill INV-10 is free for a new approval',
    );
    expect(steps[1].details).toBe('Bill INV-10 is open again (payment bp-7)');
    expect(steps[2].details).toBe(
      'C01 Incorrect DFI Account Number: account ending 0102; to be applied by 2026-12-15',
    );
    expect(steps[0].stream).toBe(`achentry-${T1}`);
  });

  it('tells a return the approval recorded itself (before the move) once, by its own event', () => {
    const legacy = stored('approval-a1', { type: 'PaymentReturnRecorded', data: { traceNumber: T1 } });
    const steps = entrySteps(
      [created, generated, legacy],
      [stored(`achentry-${T1}`, returned(T1))],
      new Map(),
    );
    expect(steps).toEqual([]);
  });
});
