// When a payment step's e-mail link cannot serve, given/when/then: staff send the current step's link
// again (only at NACHA_GENERATED or BANK_UPLOADED, with a reason, to somebody; never the bank upload
// of a file Billflow sends over SFTP), the earlier links of
// the step still work, and staff confirm the step in the app with a reason recorded on the event; an
// event recorded before reasons existed still decodes and reads.
import { describe, expect, it } from 'vitest';
import { type ApprovalEvent, approvalEvents } from '../../../schema/approvals/events.js';
import { billSnapshot } from '../../../test/support/bills.js';
import { deciderSpec } from '../../../test/support/decider-spec.js';
import { approvalDecider } from '../approval-decider.js';
import { NOBODY_TO_SEND, SYSTEM_UPLOADS } from './payment-decider.js';
import { paymentStep } from './payment-history.js';
import { REASON_LENGTH } from './step-reason.js';

const spec = deciderSpec(approvalDecider);
const t0 = '2026-11-25T10:00:00.000Z';
const at = '2026-11-25T12:00:00.000Z';
const base = { approvalId: 'a1', companyId: 2 };
const MANAGER = 'mgr@client.example';
const created: ApprovalEvent = {
  type: 'ApprovalCreated',
  data: {
    ...base,
    priority: 'HIGH',
    managerId: 3,
    createdBy: 7,
    bills: [billSnapshot('10', 400)],
    vendorContacts: [],
    recipients: [],
    confirmedDuplicates: [],
    expiresAt: '2026-12-02T10:00:00.000Z',
    at: t0,
  },
};
const approved: ApprovalEvent = {
  type: 'ApprovalApproved',
  data: { ...base, approvedBillIds: ['10'], byUserId: 8, firstApprovedBy: null, at: t0 },
};
const requested: ApprovalEvent = {
  type: 'NachaGenerationRequested',
  data: { ...base, version: 1, reason: 'approved', byUserId: null, at: t0 },
};
const generated: ApprovalEvent = {
  type: 'NachaFileGenerated',
  data: {
    ...base,
    version: 1,
    fileId: 'f1',
    fileName: 'ACH_20261125_A.txt',
    batchNumber: 1,
    fileIdModifier: 'A',
    effectiveDate: '2026-11-27',
    entryCount: 1,
    totalCreditCents: 40000,
    totalDebitCents: 0,
    balanced: false,
    vendors: [{ qbVendorId: '55', name: 'Acme', amountCents: 40000, accountLast4: '6789', billIds: ['10'] }],
    skippedBills: [],
    at: t0,
  },
};
const link = (linkId: string, action: 'bank-uploaded' | 'payment-completed'): ApprovalEvent => ({
  type: 'ApprovalLinkIssued',
  data: {
    ...base,
    linkId,
    action,
    fileVersion: 1,
    recipient: MANAGER,
    expiresAt: '2026-12-02T10:00:00.000Z',
    at: t0,
  },
});
const uploadedInApp: ApprovalEvent = {
  type: 'BankUploadConfirmed',
  data: {
    ...base,
    fileVersion: 1,
    byUserId: 8,
    linkId: null,
    recipient: null,
    reason: 'The bank portal confirmed it',
    at,
  },
};
const ready = [created, approved, requested, generated, link('L1', 'bank-uploaded')];
const uploaded = [...ready, uploadedInApp];
const resend = (reason = 'The link lapsed while the owner was away', recipientCount = 2) =>
  ({ type: 'ResendPaymentLink', byUserId: 8, reason, recipientCount, now: at }) as const;
const resent = (action: 'bank-uploaded' | 'payment-completed', recipientCount = 2): ApprovalEvent => ({
  type: 'PaymentLinkResendRequested',
  data: {
    ...base,
    action,
    fileVersion: 1,
    recipientCount,
    byUserId: 8,
    reason: 'The link lapsed while the owner was away',
    at,
  },
});

describe('sending the current step’s link again', () => {
  it('is recorded with its reason for the step the approval waits on', () => {
    spec
      .given(ready)
      .when(resend())
      .then([resent('bank-uploaded')]);
    spec
      .given(uploaded)
      .when(resend(undefined, 1))
      .then([resent('payment-completed', 1)]);
    // A second request is a new request: recorded again.
    spec
      .given([...ready, resent('bank-uploaded')])
      .when(resend())
      .then([resent('bank-uploaded')]);
  });

  it('is refused from every other status', () => {
    for (const given of [
      [created],
      [created, approved],
      [created, approved, requested],
      [
        ...uploaded,
        { type: 'PaymentCompleted', data: { ...base, byUserId: 8, linkId: null, recipient: null, at } },
      ],
    ] as ApprovalEvent[][])
      spec
        .given(given)
        .when(resend())
        .thenRefuses('CONFLICT', /Cannot send a payment link again/);
  });

  it('is refused with what to do instead when there is nobody to send to', () => {
    spec.given(ready).when(resend(undefined, 0)).thenRefuses('CONFLICT', NOBODY_TO_SEND);
    expect(NOBODY_TO_SEND).toMatch(/Confirm the step in the app.*add a recipient/);
  });

  it('is refused for the bank upload of a file Billflow sends over SFTP: nobody is to upload it', () => {
    const overSftp: ApprovalEvent = {
      ...generated,
      data: {
        ...(generated.data as object),
        window: { at: '2026-11-25T19:00:00.000Z', file: 1, via: 'sftp' },
      } as never,
    } as ApprovalEvent;
    const sftpReady = [created, approved, requested, overSftp];
    spec.given(sftpReady).when(resend()).thenRefuses('CONFLICT', SYSTEM_UPLOADS);
    // Once the bank has it, the payment's link is a person's step again.
    spec
      .given([...sftpReady, uploadedInApp])
      .when(resend())
      .then([resent('payment-completed')]);
  });

  it('is refused without a reason of 3 to 500 characters', () => {
    spec.given(ready).when(resend('ok')).thenRefuses('VALIDATION', REASON_LENGTH);
    spec
      .given(ready)
      .when(resend('x'.repeat(501)))
      .thenRefuses('VALIDATION', REASON_LENGTH);
  });

  it('leaves the step’s earlier links working until their own expiry', () => {
    spec
      .given([...ready, resent('bank-uploaded')])
      .when({
        type: 'MarkBankUploaded',
        byUserId: null,
        link: { linkId: 'L1', recipient: MANAGER, manager: MANAGER },
        now: at,
      })
      .then([
        {
          type: 'BankUploadConfirmed',
          data: { ...base, fileVersion: 1, byUserId: null, linkId: 'L1', recipient: MANAGER, at },
        },
      ]);
  });
});

describe('confirming the step in the app', () => {
  it('records the staff member’s reason on the confirmation', () => {
    spec
      .given(ready)
      .when({
        type: 'MarkBankUploaded',
        byUserId: 8,
        link: null,
        reason: 'The bank portal confirmed it',
        now: at,
      })
      .then([uploadedInApp]);
    spec
      .given(uploaded)
      .when({
        type: 'MarkPaymentCompleted',
        byUserId: 8,
        link: null,
        reason: 'Paid per bank statement',
        now: at,
      })
      .then([
        {
          type: 'PaymentCompleted',
          data: {
            ...base,
            byUserId: 8,
            linkId: null,
            recipient: null,
            reason: 'Paid per bank statement',
            at,
          },
        },
      ]);
  });

  it('refuses a reason outside 3 to 500 characters, and a step the status is not at', () => {
    spec
      .given(ready)
      .when({ type: 'MarkBankUploaded', byUserId: 8, link: null, reason: ' a ', now: at })
      .thenRefuses('VALIDATION', REASON_LENGTH);
    spec
      .given(ready)
      .when({ type: 'MarkPaymentCompleted', byUserId: 8, link: null, reason: 'Paid already', now: at })
      .thenRefuses('CONFLICT', 'Cannot update approval with status NACHA_GENERATED');
  });

  it('reads the effective date in the history: chosen on the request, same-day and why on the file', () => {
    const chosen = {
      ...base,
      version: 2,
      reason: 'regenerate' as const,
      byUserId: 8,
      effectiveDate: '2026-11-30',
      at,
    };
    expect(paymentStep({ type: 'NachaGenerationRequested', data: chosen }).details).toBe(
      'Version 2, effective 2026-11-30 as chosen',
    );
    // A request recorded before dates could be chosen still decodes and reads as before.
    const { effectiveDate: _none, ...older } = chosen;
    expect(approvalEvents.NachaGenerationRequested.schema.parse(older)).toEqual(older);
    expect(paymentStep({ type: 'NachaGenerationRequested', data: older }).details).toBe('Version 2');
    const g = generated as Extract<ApprovalEvent, { type: 'NachaFileGenerated' }>;
    const sameDay = { ...g.data, effectiveDate: '2026-11-25', sameDay: true };
    expect(paymentStep({ type: 'NachaFileGenerated', data: sameDay }).details).toContain(
      'effective 2026-11-25 (same-day), batch 1',
    );
    const note = 'An entry is above $1,000,000.00, Same-Day ACH’s limit per payment';
    expect(paymentStep({ type: 'NachaFileGenerated', data: { ...g.data, dateNote: note } }).details).toMatch(
      /effective 2026-11-27, batch 1; An entry is above/,
    );
  });

  it('reads in the history with who confirmed and why; an older confirmation still decodes', () => {
    const step = paymentStep(
      uploadedInApp as Extract<ApprovalEvent, { type: 'BankUploadConfirmed' }>,
      [],
      (id) => (id === 8 ? 'Ada Admin' : `User #${id}`),
    );
    expect(step.details).toBe(
      'NACHA file version 1. Confirmed in the app by Ada Admin: The bank portal confirmed it',
    );
    expect(step.reason).toBe('The bank portal confirmed it');
    const older = { ...base, fileVersion: 1, byUserId: 8, linkId: null, recipient: null, at };
    expect(approvalEvents.BankUploadConfirmed.schema.parse(older)).toEqual(older);
    expect(paymentStep({ type: 'BankUploadConfirmed', data: older }).details).toBe('NACHA file version 1');
    const again = paymentStep(
      resent('payment-completed', 1) as Extract<ApprovalEvent, { type: 'PaymentLinkResendRequested' }>,
      [],
      () => 'Ada Admin',
    );
    expect(again.action).toBe('Payment completed link sent again');
    expect(again.details).toBe('Asked by Ada Admin for 1 person: The link lapsed while the owner was away');
  });
});
