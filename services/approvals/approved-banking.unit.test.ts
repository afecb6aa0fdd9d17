// A file pays only what the approver saw (decision 0033): approving records each approved vendor's
// banking as shown (a fingerprint, never the numbers); a file holds out a vendor whose live banking
// has another fingerprint or a change pending or frozen; approve again records the new banking, by
// someone the policy lets approve, before the bank has the file. Given/when/then on the decider.
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent, ApprovedBanking } from '../../schema/approvals/events.js';
import { approvalCreated, billSnapshot } from '../../test/support/bills.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { approvalDecider } from './approval-decider.js';
import { bankingFingerprint } from './payments/approved-banking.js';
import {
  bankingHold,
  CHANGE_FROZEN,
  CHANGE_PENDING,
  CHANGED_AFTER_APPROVAL,
  completedBanking,
  recordedBanking,
} from './payments/banking-holds.js';
import type { SegregationPolicy } from './policy-decider.js';

const at = '2026-12-06T10:00:00.000Z';
const later = '2026-12-06T11:00:00.000Z';
const OFF: SegregationPolicy = { creatorMayNotApprove: false, secondApprovalThreshold: null };
const CREATOR_MAY_NOT: SegregationPolicy = { creatorMayNotApprove: true, secondApprovalThreshold: null };
const DUAL: SegregationPolicy = { creatorMayNotApprove: false, secondApprovalThreshold: 100 };

const acme = { value: '55', name: 'Acme Paper' };
const bolt = { value: '77', name: 'Bolt Freight' };
const created = approvalCreated({
  approvalId: 'a1',
  companyId: 2,
  createdBy: 7,
  recipients: ['ap@client.example'],
  bills: [billSnapshot('10', 400, { VendorRef: acme }), billSnapshot('11', 250, { VendorRef: bolt })],
  at,
});

const shown = (qbVendorId: string, fingerprint: string | null, accountLast4: string | null = null) =>
  ({ qbVendorId, fingerprint, routingLast4: fingerprint ? '0021' : null, accountLast4 }) as ApprovedBanking;
const A1 = shown('55', 'fp-acme-1', '1004');
const A2 = shown('55', 'fp-acme-2', '6666');
const B1 = shown('77', 'fp-bolt-1', '2200');

const approve = (ids: string[], banking: ApprovedBanking[], byUserId = 8, policy = OFF) => ({
  type: 'ApproveApproval' as const,
  approvedBillIds: ids,
  byUserId,
  policy,
  managerEmail: null,
  banking,
  now: later,
});
const approveAgain = (banking: ApprovedBanking[], byUserId = 9, policy = OFF) => ({
  type: 'ApproveBankingAgain' as const,
  byUserId,
  policy,
  banking,
  vendorNames: { '55': 'Acme Paper', '77': 'Bolt Freight' },
  now: later,
});
const approved = (ids: string[], approvedBanking: ApprovedBanking[], by = 8, first: number | null = null) =>
  ({
    type: 'ApprovalApproved',
    data: {
      approvalId: 'a1',
      companyId: 2,
      approvedBillIds: ids,
      byUserId: by,
      firstApprovedBy: first,
      approvedBanking,
      at: later,
    },
  }) as ApprovalEvent;
const legacyApproved = {
  type: 'ApprovalApproved',
  data: {
    approvalId: 'a1',
    companyId: 2,
    approvedBillIds: ['10'],
    byUserId: 8,
    firstApprovedBy: null,
    at: later,
  },
} as ApprovalEvent;
const requested = {
  type: 'NachaGenerationRequested',
  data: { approvalId: 'a1', companyId: 2, version: 1, reason: 'approved', byUserId: null, at: later },
} as ApprovalEvent;

describe('approving records the banking the approver was shown', () => {
  const spec = deciderSpec(approvalDecider);

  it('each vendor of the approved bills, as shown; a vendor of a bill left out is not recorded', () => {
    spec
      .given([created])
      .when(approve(['10'], [A1, B1]))
      .then([approved(['10'], [A1])]);
    spec
      .given([created])
      .when(approve(['10', '11'], [A1, B1]))
      .then([approved(['10', '11'], [A1, B1])]);
  });

  it('a vendor shown without banking is recorded as having none (adding one later needs approve again)', () => {
    spec
      .given([created])
      .when(approve(['11'], [A1]))
      .then([approved(['11'], [shown('77', null)])]);
    expect(recordedBanking([], ['77'])).toEqual([shown('77', null)]);
  });

  it('dual control: banking that changed after the first approver saw it stays as the first saw it', () => {
    const first = {
      type: 'ApprovalFirstApproved',
      data: {
        approvalId: 'a1',
        companyId: 2,
        approvedBillIds: ['10', '11'],
        byUserId: 8,
        amount: 650,
        threshold: 100,
        approvedBanking: [A1, B1],
        at: later,
      },
    } as ApprovalEvent;
    spec
      .given([created])
      .when(approve(['10', '11'], [A1, B1], 8, DUAL))
      .then([first]);
    // Acme's account changed before the second approver looked: the file will hold Acme out.
    spec
      .given([created, first])
      .when(approve(['10', '11'], [A2, B1], 9, DUAL))
      .then([approved(['10', '11'], [A1, B1], 9, 8)]);
    expect(completedBanking([A2, B1], [A1, B1])).toEqual([A1, B1]);
    expect(completedBanking([A1], null)).toEqual([A1]);
  });
});

describe('approve again', () => {
  const spec = deciderSpec(approvalDecider);
  const base = [created, approved(['10', '11'], [A1, B1]), requested];

  it('records the live banking of the vendors whose banking changed after approval, with what was approved', () => {
    spec
      .given(base)
      .when(approveAgain([A2, B1]))
      .then([
        {
          type: 'ApprovalBankingReapproved',
          data: {
            approvalId: 'a1',
            companyId: 2,
            byUserId: 9,
            vendors: [
              {
                ...A2,
                vendorName: 'Acme Paper',
                previous: { fingerprint: 'fp-acme-1', routingLast4: '0021', accountLast4: '1004' },
              },
            ],
            at: later,
          },
        },
      ]);
  });

  it('after it, the approval holds the new banking: nothing is left to approve again', () => {
    const again = approvalDecider.decide(
      approveAgain([A2, B1]),
      base.reduce(approvalDecider.evolve, approvalDecider.initialState()),
    );
    const state = [...base, ...again].reduce(approvalDecider.evolve, approvalDecider.initialState());
    expect(state.approvedBanking).toEqual({ '55': A2, '77': B1 });
    spec
      .given([...base, ...again])
      .when(approveAgain([A2, B1]))
      .thenRefuses('CONFLICT', /Nothing to approve again/);
  });

  it('refuses when nothing changed, when a vendor has no banking now, and on approvals made before banking was recorded', () => {
    spec
      .given(base)
      .when(approveAgain([A1, B1]))
      .thenRefuses('CONFLICT', /Nothing to approve again/);
    spec
      .given(base)
      .when(approveAgain([shown('55', null), B1]))
      .thenRefuses('CONFLICT', /Nothing to approve again/);
    spec
      .given([created, legacyApproved, requested])
      .when(approveAgain([A2]))
      .thenRefuses('CONFLICT', /Nothing to approve again/);
  });

  it('a vendor whose bills were not approved is never recorded', () => {
    spec
      .given([created, approved(['10'], [A1]), requested])
      .when(approveAgain([A1, shown('77', 'fp-bolt-2', '9999')]))
      .thenRefuses('CONFLICT', /Nothing to approve again/);
  });

  it('follows the policy: the creator may not, when the company says so', () => {
    spec
      .given(base)
      .when(approveAgain([A2, B1], 7, CREATOR_MAY_NOT))
      .thenRefuses('FORBIDDEN', /creator/);
    spec
      .given(base)
      .when(approveAgain([A2, B1], 7, OFF))
      .then([expect.objectContaining({ type: 'ApprovalBankingReapproved' }) as unknown as ApprovalEvent]);
  });

  it('only before the bank has the file, and only once approved', () => {
    spec
      .given([created])
      .when(approveAgain([A2]))
      .thenRefuses('CONFLICT', /status PENDING/);
    const uploaded = [
      ...base,
      {
        type: 'NachaFileGenerated',
        data: {
          approvalId: 'a1',
          companyId: 2,
          version: 1,
          fileId: 'f1',
          fileName: 'ACH.txt',
          batchNumber: 1,
          fileIdModifier: 'A',
          effectiveDate: '2026-12-07',
          entryCount: 1,
          totalCreditCents: 25000,
          totalDebitCents: 0,
          balanced: false,
          vendors: [],
          skippedBills: [],
          at: later,
        },
      },
      {
        type: 'BankUploadConfirmed',
        data: {
          approvalId: 'a1',
          companyId: 2,
          fileVersion: 1,
          byUserId: 8,
          linkId: null,
          recipient: null,
          at: later,
        },
      },
    ] as ApprovalEvent[];
    spec
      .given(uploaded)
      .when(approveAgain([A2, B1]))
      .thenRefuses('CONFLICT', /already at the bank/);
  });
});

describe('which vendors a file holds out', () => {
  const approvedMap = { '55': A1 };
  const live = (fingerprint: string | null, change: 'pending' | 'frozen' | null = null) => ({
    ...shown('55', fingerprint),
    change,
  });

  it('pays the banking approved; holds out other banking, and any change pending or frozen', () => {
    expect(bankingHold(approvedMap, live('fp-acme-1'))).toBeNull();
    expect(bankingHold(approvedMap, live('fp-acme-2'))).toBe(CHANGED_AFTER_APPROVAL);
    expect(bankingHold(approvedMap, live('fp-acme-1', 'pending'))).toBe(CHANGE_PENDING);
    expect(bankingHold(approvedMap, live('fp-acme-1', 'frozen'))).toBe(CHANGE_FROZEN);
    // A vendor the approval never recorded (not approved as shown): held.
    expect(bankingHold({}, live('fp-acme-1'))).toBe(CHANGED_AFTER_APPROVAL);
  });

  it('an approval made before the banking approved was recorded pays it as it stands, but not past a held change', () => {
    expect(bankingHold(null, live('fp-acme-2'))).toBeNull();
    expect(bankingHold(null, live('fp-acme-2', 'pending'))).toBe(CHANGE_PENDING);
  });

  it('the fingerprint is keyed: another key, vendor, account or type gives another; no number in it', () => {
    const key = Buffer.alloc(32, 1);
    const b = {
      routingNumber: '021000021',
      accountNumber: '66666666666',
      accountType: 'checking' as const,
      bankName: null,
    };
    const fp = bankingFingerprint(key, '55', b);
    expect(fp).toBe(bankingFingerprint(key, '55', { ...b, bankName: 'Another name' }));
    expect(fp).not.toBe(bankingFingerprint(Buffer.alloc(32, 2), '55', b));
    expect(fp).not.toBe(bankingFingerprint(key, '56', b));
    expect(fp).not.toBe(bankingFingerprint(key, '55', { ...b, accountNumber: '66666666667' }));
    expect(fp).not.toBe(bankingFingerprint(key, '55', { ...b, accountType: 'savings' }));
    expect(fp).not.toContain('6666');
    expect(fp).not.toContain('021000021');
  });
});
