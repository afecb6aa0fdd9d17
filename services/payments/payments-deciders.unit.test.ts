// The payments module's deciders, given/when/then: trace ranges at an ODFI, a file from the bank
// received, refused and applied once, an entry returned once (its QuickBooks payments voided once)
// and corrected once per file.
import { describe, expect, it } from 'vitest';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { entryDecider } from './entry-decider.js';
import { correctionDueBy } from './inbound.js';
import { inboundDecider } from './inbound-decider.js';
import { MAX_TRACE_SEQUENCE, tracesDecider } from './traces.js';

const at = '2026-12-07T15:00:00.000Z';
const sha = 'a'.repeat(64);
const otherSha = 'b'.repeat(64);
type E<T extends PaymentsEvent['type']> = Extract<PaymentsEvent, { type: T }>;
const reserved = (fileId: string, first: number, count: number): E<'AchTracesReserved'> => ({
  type: 'AchTracesReserved',
  data: { odfi: '02100002', fileId, first, count, at },
});

describe('trace ranges at an ODFI', () => {
  const spec = deciderSpec(tracesDecider);
  const reserve = (fileId: string, count: number) =>
    ({ type: 'ReserveTraces', odfi: '02100002', fileId, count, now: at }) as const;

  it('gives the first file 1.., the next file the range after the last', () => {
    spec
      .given([])
      .when(reserve('f1', 3))
      .then([reserved('f1', 1, 3)]);
    spec
      .given([reserved('f1', 1, 3)])
      .when(reserve('f2', 2))
      .then([reserved('f2', 4, 2)]);
  });
  it('answers a file asked again (a job run again) with nothing new', () => {
    spec
      .given([reserved('f1', 1, 3)])
      .when(reserve('f1', 3))
      .then([]);
  });
  it('starts again at 1 when the 7 digits would run out, never past them', () => {
    spec
      .given([reserved('f1', MAX_TRACE_SEQUENCE - 5, 5)])
      .when(reserve('f2', 2))
      .then([reserved('f2', 1, 2)]);
  });
});

const received: E<'AchInboundFileReceived'> = {
  type: 'AchInboundFileReceived',
  data: {
    fileId: sha,
    fileName: 'RET.ach',
    source: 'upload',
    byUserId: 1,
    returns: 1,
    corrections: 0,
    other: 0,
    at,
  },
};

describe('a file from the bank', () => {
  const spec = deciderSpec(inboundDecider);
  const finish = {
    type: 'FinishInboundFile',
    fileId: sha,
    applied: 1,
    alreadyApplied: 0,
    parked: [],
    now: at,
  } as const;
  it('is received once, then applied once', () => {
    spec.given([]).when({ type: 'ReceiveInboundFile', facts: received.data }).then([received]);
    spec.given([received]).when({ type: 'ReceiveInboundFile', facts: received.data }).then([]);
    const applied: E<'AchInboundFileApplied'> = {
      type: 'AchInboundFileApplied',
      data: { fileId: sha, applied: 1, alreadyApplied: 0, parked: [], at },
    };
    spec.given([received]).when(finish).then([applied]);
    spec.given([received, applied]).when(finish).then([]);
  });
  it('refused stays refused: never received, never applied', () => {
    const refused: E<'AchInboundFileRefused'> = {
      type: 'AchInboundFileRefused',
      data: { fileId: sha, fileName: 'x.ach', source: 'sftp', byUserId: null, reasons: ['line 1: bad'], at },
    };
    spec.given([]).when({ type: 'RefuseInboundFile', facts: refused.data }).then([refused]);
    spec.given([refused]).when({ type: 'ReceiveInboundFile', facts: received.data }).then([]);
    spec.given([refused]).when(finish).then([]);
  });
});

describe('an entry of a Billflow file', () => {
  const spec = deciderSpec(entryDecider);
  const returned = (inboundFileId: string): E<'PaymentEntryReturned'> => ({
    type: 'PaymentEntryReturned',
    data: {
      traceNumber: '021000020000007',
      approvalId: 'ap-1',
      companyId: 3,
      qbVendorId: '56',
      vendorName: 'Paper Co',
      amountCents: 12_500,
      accountLast4: '0003',
      fileName: 'ACH_20261207_A_ACME.txt',
      returnCode: 'R03',
      description: 'No Account/Unable to Locate Account',
      action: 'block-account',
      inboundFileId,
      at,
    },
  });
  const corrected = (inboundFileId: string): E<'PaymentEntryCorrectionReceived'> => ({
    type: 'PaymentEntryCorrectionReceived',
    data: {
      traceNumber: '021000020000007',
      approvalId: 'ap-1',
      companyId: 3,
      qbVendorId: '56',
      vendorName: 'Paper Co',
      changeCode: 'C01',
      description: 'Incorrect DFI Account Number',
      correctedAccountNumber: '1918171614',
      correctedRoutingNumber: null,
      correctedAccountType: null,
      correctedName: null,
      correctedAccountLast4: '1614',
      correctedRoutingLast4: null,
      dueBy: '2026-12-15',
      inboundFileId,
      at,
    },
  });
  it('is returned once, whichever file returns it again', () => {
    spec
      .given([])
      .when({ type: 'ReturnEntry', facts: returned(sha).data })
      .then([returned(sha)]);
    spec
      .given([returned(sha)])
      .when({ type: 'ReturnEntry', facts: returned(otherSha).data })
      .then([]);
  });
  it('records the voids of its QuickBooks payments once, after a return, for its own bills only', () => {
    const withBills: E<'PaymentEntryReturned'> = {
      ...returned(sha),
      data: { ...returned(sha).data, bills: [{ billId: 'b1', amountCents: 12_500 }], fileEntryCount: 2 },
    };
    const bills = [{ billId: 'b1', docNumber: 'INV-1', billPaymentId: 'bp-9', amount: 125 }];
    const voided: E<'PaymentEntryQbVoided'> = {
      type: 'PaymentEntryQbVoided',
      data: {
        traceNumber: '021000020000007',
        approvalId: 'ap-1',
        companyId: 3,
        vendorName: 'Paper Co',
        bills,
        at,
      },
    };
    const record = { type: 'RecordQbVoids', bills, now: at } as const;
    spec.given([withBills]).when(record).then([voided]);
    spec.given([withBills, voided]).when(record).then([]);
    spec
      .given([])
      .when(record)
      .thenRefuses('CONFLICT', /not returned/);
    spec
      .given([withBills])
      .when({ ...record, bills: [{ ...bills[0], billId: 'b2' }] })
      .thenRefuses('VALIDATION', /b2 is not one of the returned entry/);
    // A return read before its bills were kept: the approval's own file names them.
    spec
      .given([returned(sha)])
      .when(record)
      .then([voided]);
  });
  it('records a notification of change once per file that carries one', () => {
    spec
      .given([])
      .when({ type: 'RecordCorrection', facts: corrected(sha).data })
      .then([corrected(sha)]);
    spec
      .given([corrected(sha)])
      .when({ type: 'RecordCorrection', facts: corrected(sha).data })
      .then([]);
    spec
      .given([corrected(sha)])
      .when({ type: 'RecordCorrection', facts: corrected(otherSha).data })
      .then([corrected(otherSha)]);
  });
});

describe("a notification of change's deadline", () => {
  it('is six banking days after it arrived, weekends and Fed holidays skipped', () => {
    // Monday 2026-12-21 + 6 banking days: 22, 23, 24, (25 Christmas), 28, 29, 30.
    expect(correctionDueBy('2026-12-21')).toBe('2026-12-30');
  });
});
