// The payment rules on the approval's stream, given/when/then: the file asked for once after the
// approval and regenerated only before the bank has it; bank upload only from NACHA_GENERATED,
// payment only from BANK_UPLOADED, nothing after; links refused when used, expired, for another
// action or replaced; QuickBooks payments once per bill, retried for the bills not yet paid.
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../../schema/approvals/events.js';
import { billSnapshot } from '../../../test/support/bills.js';
import { deciderSpec } from '../../../test/support/decider-spec.js';
import { approvalDecider } from '../approval-decider.js';

const spec = deciderSpec(approvalDecider);
const t0 = '2026-11-25T10:00:00.000Z';
const at = '2026-11-25T12:00:00.000Z';
const bill = billSnapshot;
const base = { approvalId: 'a1', companyId: 2 };
const created: ApprovalEvent = {
  type: 'ApprovalCreated',
  data: {
    ...base,
    priority: 'HIGH',
    managerId: 3,
    createdBy: 7,
    bills: [bill('10', 400), bill('11', 700)],
    vendorContacts: [],
    recipients: [],
    confirmedDuplicates: [],
    expiresAt: '2026-12-02T10:00:00.000Z',
    at: t0,
  },
};
const approved: ApprovalEvent = {
  type: 'ApprovalApproved',
  data: { ...base, approvedBillIds: ['10', '11'], byUserId: 8, firstApprovedBy: null, at: t0 },
};
const requested = (version: number, reason: 'approved' | 'regenerate' = 'approved'): ApprovalEvent => ({
  type: 'NachaGenerationRequested',
  data: { ...base, version, reason, byUserId: reason === 'approved' ? null : 8, at: t0 },
});
const file = {
  fileId: 'f1',
  fileName: 'ACH_20261125_A.txt',
  batchNumber: 1,
  fileIdModifier: 'A',
  effectiveDate: '2026-11-27',
  entryCount: 1,
  totalCreditCents: 110000,
  totalDebitCents: 0,
  balanced: false,
  vendors: [
    {
      qbVendorId: '55',
      name: 'Acme Paper',
      amountCents: 110000,
      accountLast4: '6789',
      billIds: ['10', '11'],
    },
  ],
  skippedBills: [],
};
const generated = (version = 1): Extract<ApprovalEvent, { type: 'NachaFileGenerated' }> => ({
  type: 'NachaFileGenerated',
  data: { ...base, version, ...file, fileId: `f${version}`, at: t0 },
});
const link = (
  linkId: string,
  action: 'bank-uploaded' | 'payment-completed',
  fileVersion = 1,
): Extract<ApprovalEvent, { type: 'ApprovalLinkIssued' }> => ({
  type: 'ApprovalLinkIssued',
  data: {
    ...base,
    linkId,
    action,
    fileVersion,
    recipient: 'mgr@client.example',
    expiresAt: '2026-12-02T10:00:00.000Z',
    at: t0,
  },
});
const uploaded: ApprovalEvent = {
  type: 'BankUploadConfirmed',
  data: { ...base, fileVersion: 1, byUserId: null, linkId: 'L1', recipient: 'mgr@client.example', at: t0 },
};
const paid: ApprovalEvent = {
  type: 'PaymentCompleted',
  data: { ...base, byUserId: null, linkId: 'L2', recipient: 'mgr@client.example', at: t0 },
};
const viaLink = (linkId: string) => ({
  byUserId: null,
  link: { linkId, recipient: 'mgr@client.example', manager: 'mgr@client.example' },
});
const ready = [created, approved, requested(1), generated(1), link('L1', 'bank-uploaded')];

describe('the NACHA file', () => {
  it('is asked for once after the approval, by the system', () => {
    const cmd = { type: 'RequestNacha', reason: 'approved', byUserId: null, now: t0 } as const;
    spec
      .given([created, approved])
      .when(cmd)
      .then([requested(1)]);
    spec
      .given([created, approved, requested(1)])
      .when(cmd)
      .then([]);
    spec.given([created]).when(cmd).then([]);
  });

  it('carries the effective date chosen at approval, or at Regenerate, on the request', () => {
    const chosen: ApprovalEvent = {
      type: 'ApprovalApproved',
      data: { ...approved.data, effectiveDate: '2026-11-30' } as typeof approved.data,
    };
    const withDate = (version: number, reason: 'approved' | 'regenerate', effectiveDate: string) => {
      const e = requested(version, reason) as Extract<ApprovalEvent, { type: 'NachaGenerationRequested' }>;
      return { ...e, data: { ...e.data, effectiveDate } };
    };
    spec
      .given([created, chosen])
      .when({ type: 'RequestNacha', reason: 'approved', byUserId: null, now: t0 })
      .then([withDate(1, 'approved', '2026-11-30')]);
    spec
      .given([created, chosen, withDate(1, 'approved', '2026-11-30'), generated(1)])
      .when({ type: 'RequestNacha', reason: 'regenerate', byUserId: 8, effectiveDate: '2026-12-01', now: at })
      .then([
        {
          ...withDate(2, 'regenerate', '2026-12-01'),
          data: { ...withDate(2, 'regenerate', '2026-12-01').data, at },
        },
      ]);
    // Regenerate without a date asks for the default: the earlier choice is not carried over.
    spec
      .given([created, chosen, withDate(1, 'approved', '2026-11-30'), generated(1)])
      .when({ type: 'RequestNacha', reason: 'regenerate', byUserId: 8, now: t0 })
      .then([requested(2, 'regenerate')]);
  });

  it('is regenerated as a new version before the bank has it, and refused after', () => {
    const cmd = { type: 'RequestNacha', reason: 'regenerate', byUserId: 8, now: t0 } as const;
    spec
      .given([created, approved, requested(1), generated(1)])
      .when(cmd)
      .then([requested(2, 'regenerate')]);
    spec
      .given([...ready, uploaded])
      .when(cmd)
      .thenRefuses('CONFLICT', /already at the bank/);
    spec
      .given([...ready, uploaded, link('L2', 'payment-completed'), paid])
      .when(cmd)
      .thenRefuses('CONFLICT', /pay the vendors twice/);
    spec
      .given([created])
      .when(cmd)
      .thenRefuses('CONFLICT', /status PENDING/);
  });

  it('counts only the latest request’s outcome, once', () => {
    const cmd = { type: 'RecordNachaGenerated', version: 1, file, now: t0 } as const;
    spec
      .given([created, approved, requested(1)])
      .when(cmd)
      .then([{ ...generated(1), data: { ...generated(1).data, fileId: 'f1' } }]);
    spec
      .given([created, approved, requested(1), generated(1)])
      .when(cmd)
      .then([]);
    spec
      .given([created, approved, requested(1), requested(2, 'regenerate')])
      .when(cmd)
      .then([]);
  });

  it('records a failure with what to fix; the approval waits in NACHA_PENDING', () => {
    const problems = [
      {
        kind: 'vendor-banking' as const,
        vendorName: 'Acme Paper',
        message: 'Acme Paper has no banking details',
      },
    ];
    spec
      .given([created, approved, requested(1)])
      .when({
        type: 'RecordNachaFailed',
        version: 1,
        reason: 'Acme Paper has no banking details',
        problems,
        now: at,
      })
      .then([
        {
          type: 'NachaGenerationFailed',
          data: { ...base, version: 1, reason: 'Acme Paper has no banking details', problems, at },
        },
      ]);
  });

  it('refuses delete once a file was asked for', () => {
    spec
      .given([created, approved, requested(1)])
      .when({ type: 'DeleteApproval', byUserId: 8, now: at })
      .thenRefuses('CONFLICT', /payment file has been asked for/);
  });

  it('records a download of a file of this approval only', () => {
    spec
      .given(ready)
      .when({ type: 'RecordNachaDownload', fileId: 'f1', byUserId: 8, now: at })
      .then([
        { type: 'NachaFileDownloaded', data: { ...base, fileId: 'f1', kind: 'payment', byUserId: 8, at } },
      ]);
    spec
      .given(ready)
      .when({ type: 'RecordNachaDownload', fileId: 'other', byUserId: 8, now: at })
      .thenRefuses('NOT_FOUND');
  });
});

describe('bank upload and payment', () => {
  it('confirms the bank upload through a valid link, naming its recipient', () => {
    spec
      .given(ready)
      .when({ type: 'MarkBankUploaded', ...viaLink('L1'), now: at })
      .then([
        {
          type: 'BankUploadConfirmed',
          data: {
            ...base,
            fileVersion: 1,
            byUserId: null,
            linkId: 'L1',
            recipient: 'mgr@client.example',
            at,
          },
        },
      ]);
  });

  it('refuses bank upload outside NACHA_GENERATED, in the spec’s words', () => {
    spec
      .given([created, approved, requested(1)])
      .when({ type: 'MarkBankUploaded', ...viaLink('L1'), now: at })
      .thenRefuses('CONFLICT', 'Cannot update approval with status NACHA_PENDING');
    spec
      .given([...ready, uploaded])
      .when({ type: 'MarkBankUploaded', ...viaLink('L1'), now: at })
      .thenRefuses('CONFLICT', /status BANK_UPLOADED/);
  });

  it('refuses a link that is unknown, for another action, expired, or replaced by a regenerated file', () => {
    spec
      .given(ready)
      .when({ type: 'MarkBankUploaded', ...viaLink('nope'), now: at })
      .thenRefuses('FORBIDDEN', /not valid/);
    spec
      .given([...ready, link('P1', 'payment-completed')])
      .when({ type: 'MarkBankUploaded', ...viaLink('P1'), now: at })
      .thenRefuses('FORBIDDEN', /another action/);
    spec
      .given(ready)
      .when({ type: 'MarkBankUploaded', ...viaLink('L1'), now: '2026-12-03T00:00:00.000Z' })
      .thenRefuses('FORBIDDEN', /expired/);
    const regenerated = [...ready, requested(2, 'regenerate'), generated(2)];
    spec
      .given(regenerated)
      .when({ type: 'MarkBankUploaded', ...viaLink('L1'), now: at })
      .thenRefuses('FORBIDDEN', /replaced/);
  });

  it('refuses a link whose recipient is no longer on the approval: removed, or no longer its manager', () => {
    const withRecipient: ApprovalEvent = {
      ...created,
      data: { ...created.data, recipients: ['AP@client.example'] },
    };
    const toRecipient: ApprovalEvent = {
      ...link('R1', 'bank-uploaded'),
      data: { ...link('R1', 'bank-uploaded').data, recipient: 'ap@client.example' },
    };
    const removed: ApprovalEvent = {
      type: 'ApprovalRecipientsUpdated',
      data: { ...base, recipients: ['cfo@client.example'], at: t0 },
    };
    const byRecipient = {
      type: 'MarkBankUploaded',
      byUserId: null,
      link: { linkId: 'R1', recipient: 'ap@client.example', manager: 'mgr@client.example' },
      now: at,
    } as const;
    const issued = [withRecipient, approved, requested(1), generated(1), toRecipient];
    spec
      .given(issued)
      .when(byRecipient)
      .then([
        {
          type: 'BankUploadConfirmed',
          data: { ...base, fileVersion: 1, byUserId: null, linkId: 'R1', recipient: 'ap@client.example', at },
        },
      ]);
    spec
      .given([...issued, removed])
      .when(byRecipient)
      .thenRefuses('FORBIDDEN', /no longer a recipient of this approval/);
    // The manager's link: the caller says who the manager is now (none, or someone else).
    for (const manager of [null, 'new.manager@client.example'])
      spec
        .given(ready)
        .when({
          type: 'MarkBankUploaded',
          byUserId: null,
          link: { linkId: 'L1', recipient: 'mgr@client.example', manager },
          now: at,
        })
        .thenRefuses('FORBIDDEN', /no longer a recipient of this approval/);
  });

  it('marks the payment completed only from BANK_UPLOADED, and a used link never again', () => {
    const uploadedState = [...ready, uploaded, link('L2', 'payment-completed')];
    spec
      .given(uploadedState)
      .when({ type: 'MarkPaymentCompleted', ...viaLink('L2'), now: at })
      .then([
        {
          type: 'PaymentCompleted',
          data: { ...base, byUserId: null, linkId: 'L2', recipient: 'mgr@client.example', at },
        },
      ]);
    spec
      .given(ready)
      .when({ type: 'MarkPaymentCompleted', ...viaLink('L1'), now: at })
      .thenRefuses('CONFLICT', /status NACHA_GENERATED/);
    spec
      .given([...uploadedState, paid])
      .when({ type: 'MarkPaymentCompleted', ...viaLink('L2'), now: at })
      .thenRefuses('CONFLICT', /PAYMENT_COMPLETED/);
  });

  it('issues a link only for the step the approval is at, once', () => {
    const cmd = {
      type: 'IssueLink',
      linkId: 'L9',
      action: 'bank-uploaded',
      recipient: 'x@client.example',
      expiresAt: '2026-12-02T10:00:00.000Z',
      now: t0,
    } as const;
    spec
      .given([created, approved, requested(1), generated(1)])
      .when(cmd)
      .then([
        {
          type: 'ApprovalLinkIssued',
          data: { ...link('L9', 'bank-uploaded').data, recipient: 'x@client.example' },
        },
      ]);
    spec
      .given([...ready, link('L9', 'bank-uploaded')])
      .when(cmd)
      .then([]);
    spec
      .given([...ready, uploaded])
      .when(cmd)
      .then([]);
  });
});

describe('QuickBooks bill payments', () => {
  const done = [...ready, uploaded, link('L2', 'payment-completed'), paid];
  const started = (attempt: number, billIds: string[], byUserId: number | null = null): ApprovalEvent => ({
    type: 'QbPaymentSyncStarted',
    data: { ...base, attempt, billIds, byUserId, at },
  });
  const billPaid = (billId: string, attempt = 1): ApprovalEvent => ({
    type: 'QbBillPaid',
    data: {
      ...base,
      attempt,
      billId,
      docNumber: `INV-${billId}`,
      vendorName: 'Acme Paper',
      amount: 400,
      billPaymentId: `bp${billId}`,
      durationMs: 5,
      at,
    },
  });
  const result = (billId: string, attempt = 1) =>
    ({
      type: 'RecordQbBillResult',
      attempt,
      billId,
      docNumber: `INV-${billId}`,
      vendorName: 'Acme Paper',
      amount: 400,
      durationMs: 5,
      outcome: { billPaymentId: `bp${billId}` },
      now: at,
    }) as const;
  const finish = (attempt: number, skipped = false) =>
    ({ type: 'FinishQbSync', returnedBillIds: [], attempt, skipped, message: 'm', now: at }) as const;
  const finished = (
    attempt: number,
    status: 'SUCCESS' | 'PARTIAL_SUCCESS' | 'FAILED' | 'SKIPPED',
  ): ApprovalEvent => ({
    type: 'QbPaymentSyncFinished',
    data: { ...base, attempt, status, message: 'm', at },
  });

  it('starts once after the payment, for every approved bill', () => {
    const cmd = { type: 'StartQbSync', returnedBillIds: [], retry: false, byUserId: null, now: at } as const;
    spec
      .given(done)
      .when(cmd)
      .then([started(1, ['10', '11'])]);
    spec
      .given([...done, started(1, ['10', '11'])])
      .when(cmd)
      .then([]);
    spec.given(ready).when(cmd).thenRefuses('CONFLICT');
  });

  it('leaves out a bill whose entry the bank returned (the caller reads the returns), unless already recorded', () => {
    spec
      .given(done)
      .when({ type: 'StartQbSync', returnedBillIds: ['11'], retry: false, byUserId: null, now: at })
      .then([started(1, ['10'])]);
    // The run records bill 10 and ends: every bill QuickBooks must record is recorded.
    spec
      .given([...done, started(1, ['10']), billPaid('10')])
      .when({
        type: 'FinishQbSync',
        returnedBillIds: ['11'],
        attempt: 1,
        skipped: false,
        message: 'm',
        now: at,
      })
      .then([finished(1, 'SUCCESS')]);
  });

  it("pays only the bills of the file the bank took: a bill it left out is not the sync's", () => {
    // Version 2 paid bill 10 alone, $4 of it; bill 11 was left out (its balance went to 0).
    const v2: ApprovalEvent = {
      type: 'NachaFileGenerated',
      data: {
        ...generated(2).data,
        totalCreditCents: 400,
        vendors: [
          {
            ...file.vendors[0],
            amountCents: 400,
            billIds: ['10'],
            bills: [{ billId: '10', amountCents: 400 }],
          },
        ],
        skippedBills: [{ billId: '11', docNumber: 'INV-11', reason: 'already paid in QuickBooks' }],
      },
    };
    const upload2: ApprovalEvent = {
      ...uploaded,
      data: { ...uploaded.data, fileVersion: 2 },
    } as ApprovalEvent;
    const history = [
      created,
      approved,
      requested(1),
      generated(1),
      requested(2, 'regenerate'),
      v2,
      upload2,
      paid,
    ];
    spec
      .given(history)
      .when({ type: 'StartQbSync', returnedBillIds: [], retry: false, byUserId: null, now: at })
      .then([started(1, ['10'])]);
    spec
      .given([...history, started(1, ['10'])])
      .when(result('11'))
      .thenRefuses('VALIDATION', /Not a bill the uploaded NACHA file paid/);
  });

  it('records a bill paid once, and sums the run: partial, then a retry pays only the rest', () => {
    const run1 = [...done, started(1, ['10', '11'])];
    spec
      .given(run1)
      .when(result('10'))
      .then([billPaid('10')]);
    spec
      .given([...run1, billPaid('10')])
      .when(result('10'))
      .then([]);
    spec
      .given([...run1, billPaid('10')])
      .when(finish(1))
      .then([finished(1, 'PARTIAL_SUCCESS')]);
    const partial = [...run1, billPaid('10'), finished(1, 'PARTIAL_SUCCESS')];
    spec
      .given(partial)
      .when({ type: 'StartQbSync', returnedBillIds: [], retry: true, byUserId: 8, now: at })
      .then([started(2, ['11'], 8)]);
    spec
      .given([...partial, started(2, ['11'], 8), billPaid('11', 2)])
      .when(finish(2))
      .then([finished(2, 'SUCCESS')]);
  });

  it('says FAILED when nothing was paid, SKIPPED when the company is not connected; refuses retry after SUCCESS or while running', () => {
    const run1 = [...done, started(1, ['10', '11'])];
    spec
      .given(run1)
      .when(finish(1))
      .then([finished(1, 'FAILED')]);
    spec
      .given(run1)
      .when(finish(1, true))
      .then([finished(1, 'SKIPPED')]);
    spec
      .given(run1)
      .when({ type: 'StartQbSync', returnedBillIds: [], retry: true, byUserId: 8, now: at })
      .thenRefuses('CONFLICT', /already running/);
    const all = [...run1, billPaid('10'), billPaid('11'), finished(1, 'SUCCESS')];
    spec
      .given(all)
      .when({ type: 'StartQbSync', returnedBillIds: [], retry: true, byUserId: 8, now: at })
      .thenRefuses('CONFLICT', /already paid/);
  });

  it('drops a result of an older attempt', () => {
    const run2 = [...done, started(1, ['10', '11']), finished(1, 'FAILED'), started(2, ['10', '11'], 8)];
    spec.given(run2).when(result('10', 1)).then([]);
  });
});

describe('a payment job that failed for good', () => {
  const failed = (jobId: string, job: 'generate-nacha' | 'send-links' = 'generate-nacha'): ApprovalEvent => ({
    type: 'PaymentJobFailed',
    data: { ...base, job, jobId, queue: 'payments', reason: 'the database could not be reached', at },
  });
  const record = (jobId: string, job: 'generate-nacha' | 'send-links' = 'generate-nacha') =>
    ({
      type: 'RecordPaymentJobFailed',
      job,
      jobId,
      queue: 'payments',
      reason: 'the database could not be reached',
      now: at,
    }) as const;

  it('is recorded once per job, and closed when that job goes through on a retry', () => {
    const given = [created, approved, requested(1)];
    spec
      .given(given)
      .when(record('j1'))
      .then([failed('j1')]);
    spec
      .given([...given, failed('j1')])
      .when(record('j1'))
      .then([]);
    spec
      .given([...given, failed('j1')])
      .when({ type: 'RecordPaymentJobRecovered', jobId: 'j1', now: at })
      .then([{ type: 'PaymentJobRecovered', data: { ...base, job: 'generate-nacha', jobId: 'j1', at } }]);
    spec.given(given).when({ type: 'RecordPaymentJobRecovered', jobId: 'j1', now: at }).then([]);
  });

  it('keeps the problem a failed notice was about: the notice’s own failure is not recorded over it', () => {
    const given = [created, approved, requested(1), failed('j1')];
    spec
      .given(given)
      .when({ ...record('n1'), job: 'notify-payment-problem' })
      .then([]);
    spec
      .given([created, approved, requested(1)])
      .when({ ...record('n1'), job: 'notify-payment-problem' })
      .then([
        {
          type: 'PaymentJobFailed',
          data: { ...(failed('n1').data as object), job: 'notify-payment-problem' },
        } as ApprovalEvent,
      ]);
  });

  it('is over once its step goes through another way: a regenerated file ends a generation failure', () => {
    const state = [created, approved, requested(1), failed('j1'), requested(2, 'regenerate')].reduce(
      (s, e) => approvalDecider.evolve(s, e),
      approvalDecider.initialState(),
    );
    expect(state.payment.jobProblem).toBeNull();
    const mailFailed = [
      created,
      approved,
      requested(1),
      failed('j2', 'send-links'),
      requested(2, 'regenerate'),
    ].reduce((s, e) => approvalDecider.evolve(s, e), approvalDecider.initialState());
    expect(mailFailed.payment.jobProblem).toMatchObject({ job: 'send-links', jobId: 'j2' });
  });
});

describe('a file that waited on the day’s file limit', () => {
  const limited: ApprovalEvent = {
    type: 'NachaGenerationFailed',
    data: {
      ...base,
      version: 1,
      reason: 'limit',
      problems: [{ kind: 'file-limit', vendorName: null, message: 'waits', waitUntil: '2026-11-27' }],
      at,
    },
  };
  const ask = { type: 'RequestDeferredNacha', version: 1, now: at } as const;

  it('is asked for again by the system when its day comes, only while it still waits', () => {
    spec
      .given([created, approved, requested(1), limited])
      .when(ask)
      .then([
        {
          type: 'NachaGenerationRequested',
          data: { ...base, version: 2, reason: 'regenerate', byUserId: null, at },
        },
      ]);
    // Regenerated by staff meanwhile, or waiting on something else: nothing.
    spec
      .given([created, approved, requested(1), limited, requested(2, 'regenerate')])
      .when(ask)
      .then([]);
    const otherProblem: ApprovalEvent = {
      ...limited,
      data: {
        ...limited.data,
        problems: [{ kind: 'vendor-banking', vendorName: 'X', message: 'no banking' }],
      },
    } as ApprovalEvent;
    spec
      .given([created, approved, requested(1), otherProblem])
      .when(ask)
      .then([]);
  });
});
