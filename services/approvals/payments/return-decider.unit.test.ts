// The bank's return of an entry on the approval's stream, given/when/then: recorded once per trace
// with the vendor's bills and whether every entry of the file came back; another approval's entry
// refused; a returned bill never paid in QuickBooks afterwards, the run complete without it; the voids
// recorded once, for the return's own bills only.
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../../schema/approvals/events.js';
import { billSnapshot } from '../../../test/support/bills.js';
import { deciderSpec } from '../../../test/support/decider-spec.js';
import { approvalDecider } from '../approval-decider.js';
import type { ReturnedEntry } from './payment-decider.js';

const spec = deciderSpec(approvalDecider);
const t0 = '2026-11-25T10:00:00.000Z';
const at = '2026-11-30T12:00:00.000Z';
const base = { approvalId: 'a1', companyId: 2 };
const vendor = (qbVendorId: string, name: string, bills: Array<[string, number]>, trace: string) => ({
  qbVendorId,
  name,
  amountCents: bills.reduce((s, [, c]) => s + c, 0),
  accountLast4: qbVendorId === '55' ? '0003' : '0101',
  billIds: bills.map(([id]) => id),
  bills: bills.map(([billId, amountCents]) => ({ billId, amountCents })),
  traceNumber: trace,
});
const history: ApprovalEvent[] = [
  {
    type: 'ApprovalCreated',
    data: {
      ...base,
      priority: 'HIGH',
      managerId: 3,
      createdBy: 7,
      bills: [
        { ...billSnapshot('10', 400), DocNumber: 'INV-10' },
        { ...billSnapshot('11', 700), DocNumber: 'INV-11' },
        { ...billSnapshot('12', 250), DocNumber: 'INV-12' },
      ],
      vendorContacts: [],
      recipients: [],
      confirmedDuplicates: [],
      expiresAt: '2026-12-02T10:00:00.000Z',
      at: t0,
    },
  },
  {
    type: 'ApprovalApproved',
    data: { ...base, approvedBillIds: ['10', '11', '12'], byUserId: 8, firstApprovedBy: null, at: t0 },
  },
  {
    type: 'NachaGenerationRequested',
    data: { ...base, version: 1, reason: 'approved', byUserId: null, at: t0 },
  },
  {
    type: 'NachaFileGenerated',
    data: {
      ...base,
      version: 1,
      fileId: 'f1',
      fileName: 'ACH_20261125_A.txt',
      batchNumber: 1,
      fileIdModifier: 'A',
      effectiveDate: '2026-11-27',
      entryCount: 2,
      totalCreditCents: 135000,
      totalDebitCents: 0,
      balanced: false,
      vendors: [
        vendor(
          '55',
          'Acme Paper',
          [
            ['10', 40000],
            ['11', 70000],
          ],
          '021000020000001',
        ),
        vendor('66', 'Bolt Supply', [['12', 25000]], '021000020000002'),
      ],
      skippedBills: [],
      at: t0,
    },
  },
  {
    type: 'BankUploadConfirmed',
    data: { ...base, fileVersion: 1, byUserId: 8, linkId: null, recipient: null, reason: 'portal', at: t0 },
  },
  {
    type: 'PaymentCompleted',
    data: { ...base, byUserId: 8, linkId: null, recipient: null, reason: 'statement', at: t0 },
  },
];
const entry = (trace: string, over: Partial<ReturnedEntry> = {}): ReturnedEntry => ({
  traceNumber: trace,
  approvalId: 'a1',
  companyId: 2,
  qbVendorId: trace.endsWith('1') ? '55' : '66',
  vendorName: trace.endsWith('1') ? 'Acme Paper' : 'Bolt Supply',
  amountCents: trace.endsWith('1') ? 110000 : 25000,
  accountLast4: trace.endsWith('1') ? '0003' : '0101',
  fileName: 'ACH_20261125_A.txt',
  returnCode: 'R03',
  description: 'No account / unable to locate account',
  action: 'block-account',
  inboundFileId: 'a'.repeat(64),
  at,
  ...over,
});
const docNumbers = { '10': 'INV-10', '11': 'INV-11', '12': 'INV-12' };
const record = (trace: string, over: Partial<ReturnedEntry> = {}) =>
  ({ type: 'RecordPaymentReturn', entry: entry(trace, over), docNumbers, now: at }) as const;
const recorded = (trace: string, state: 'RETURNED' | 'PARTLY_RETURNED'): ApprovalEvent => {
  const e = entry(trace);
  const { inboundFileId: _i, traceNumber, at: returnedAt, approvalId: _a, companyId: _c, ...rest } = e;
  return {
    type: 'PaymentReturnRecorded',
    data: {
      ...base,
      ...rest,
      traceNumber,
      bills: trace.endsWith('1')
        ? [
            { billId: '10', docNumber: 'INV-10', amountCents: 40000 },
            { billId: '11', docNumber: 'INV-11', amountCents: 70000 },
          ]
        : [{ billId: '12', docNumber: 'INV-12', amountCents: 25000 }],
      bankPaymentState: state,
      returnedAt,
      at,
    },
  };
};
const T1 = '021000020000001';
const T2 = '021000020000002';

describe('a returned entry on its approval', () => {
  it('is recorded once, with its vendor’s bills; the file’s last entry back makes it RETURNED', () => {
    spec
      .given(history)
      .when(record(T1))
      .then([recorded(T1, 'PARTLY_RETURNED')]);
    spec
      .given([...history, recorded(T1, 'PARTLY_RETURNED')])
      .when(record(T1))
      .then([]);
    spec
      .given([...history, recorded(T1, 'PARTLY_RETURNED')])
      .when(record(T2))
      .then([recorded(T2, 'RETURNED')]);
    spec
      .given(history)
      .when(record(T1, { approvalId: 'other' }))
      .thenRefuses('VALIDATION');
  });

  it('keeps a returned bill out of the QuickBooks run, which completes with the rest', () => {
    const after = [...history, recorded(T1, 'PARTLY_RETURNED')];
    const start = { type: 'StartQbSync', retry: false, byUserId: null, now: at } as const;
    const [started] = approvalDecider.decide(
      start,
      after.reduce(approvalDecider.evolve, approvalDecider.initialState()),
    );
    expect(started).toMatchObject({ type: 'QbPaymentSyncStarted', data: { billIds: ['12'] } });
    const paid: ApprovalEvent = {
      type: 'QbBillPaid',
      data: {
        ...base,
        attempt: 1,
        billId: '12',
        docNumber: 'INV-12',
        vendorName: 'Bolt Supply',
        amount: 250,
        billPaymentId: 'bp12',
        durationMs: 3,
        at,
      },
    };
    spec
      .given([...after, started as ApprovalEvent, paid])
      .when({ type: 'FinishQbSync', attempt: 1, skipped: false, message: 'm', now: at })
      .then([
        {
          type: 'QbPaymentSyncFinished',
          data: { ...base, attempt: 1, status: 'SUCCESS', message: 'm', at },
        },
      ]);
  });

  it('records the voids once, for the return’s own bills', () => {
    const after = [...history, recorded(T1, 'PARTLY_RETURNED')];
    const voids = (bills: Array<[string, string]>) =>
      ({
        type: 'RecordQbVoids',
        traceNumber: T1,
        bills: bills.map(([billId, billPaymentId]) => ({
          billId,
          docNumber: `INV-${billId}`,
          billPaymentId,
          amount: 1,
        })),
        now: at,
      }) as const;
    const voided: ApprovalEvent = {
      type: 'QbBillPaymentVoided',
      data: {
        ...base,
        traceNumber: T1,
        vendorName: 'Acme Paper',
        bills: [
          { billId: '10', docNumber: 'INV-10', billPaymentId: 'bp10', amount: 1 },
          { billId: '11', docNumber: 'INV-11', billPaymentId: 'bp11', amount: 1 },
        ],
        at,
      },
    };
    spec
      .given(after)
      .when(
        voids([
          ['10', 'bp10'],
          ['11', 'bp11'],
        ]),
      )
      .then([voided]);
    spec
      .given([...after, voided])
      .when(voids([['10', 'bp10']]))
      .then([]);
    spec
      .given(after)
      .when(voids([['12', 'bp12']]))
      .thenRefuses('VALIDATION');
    spec
      .given(history)
      .when(voids([['10', 'bp10']]))
      .thenRefuses('VALIDATION');
  });
});
