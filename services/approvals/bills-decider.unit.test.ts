import { describe, expect, it } from 'vitest';
import type { ApprovalBillsEvent, ConfirmedDuplicate } from '../../schema/approvals/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { approvalBillsDecider, billFingerprint, DuplicateBillsError } from './bills-decider.js';

const now = '2026-11-25T10:00:00.000Z';

describe('approval bills (one open approval per bill, duplicate guard)', () => {
  const spec = deciderSpec(approvalBillsDecider);
  const fp = (vendor: string, amount: number, doc: string) =>
    billFingerprint({ vendorId: vendor, amount, docNumber: doc });
  const claim = (approvalId: string, list: Array<[string, string]>, confirmDuplicates: string[] = []) => ({
    type: 'ClaimBills' as const,
    companyId: 2,
    approvalId,
    bills: list.map(([billId, fingerprint]) => ({ billId, fingerprint })),
    confirmDuplicates,
    now,
  });
  const claimed = (
    approvalId: string,
    list: Array<[string, string]>,
    dups: ConfirmedDuplicate[] = [],
  ): ApprovalBillsEvent => ({
    type: 'ApprovalBillsClaimed',
    data: {
      companyId: 2,
      approvalId,
      bills: list.map(([billId, fingerprint]) => ({ billId, fingerprint })),
      confirmedDuplicates: dups,
      at: now,
    },
  });
  const a = fp('55', 100, 'INV-1');
  const b = fp('56', 200, 'INV-2');

  it('claims free bills, and again for the same approval changes nothing', () => {
    spec
      .given([])
      .when(claim('a1', [['10', a]]))
      .then([claimed('a1', [['10', a]])]);
    spec
      .given([claimed('a1', [['10', a]])])
      .when(claim('a1', [['10', a]]))
      .then([]);
  });

  it('refuses a bill in another open approval, and frees it on release', () => {
    spec
      .given([claimed('a1', [['10', a]])])
      .when(
        claim('a2', [
          ['10', a],
          ['11', b],
        ]),
      )
      .thenRefuses('CONFLICT', /Bill 10 is already in an open approval/);
    const released: ApprovalBillsEvent = {
      type: 'ApprovalBillsReleased',
      data: { companyId: 2, approvalId: 'a1', billIds: ['10'], reason: 'rejected', forget: false, at: now },
    };
    spec
      .given([claimed('a1', [['10', a]])])
      .when({
        type: 'ReleaseBills',
        companyId: 2,
        releases: [{ approvalId: 'a1', billIds: ['10'] }],
        reason: 'rejected',
        now,
      })
      .then([released]);
    // Released: the same bill may go in a new approval (same bill id is no duplicate).
    spec
      .given([claimed('a1', [['10', a]]), released])
      .when(claim('a2', [['10', a]]))
      .then([claimed('a2', [['10', a]])]);
    // Releasing again, or another approval's bill, appends nothing.
    spec
      .given([claimed('a1', [['10', a]]), released])
      .when({
        type: 'ReleaseBills',
        companyId: 2,
        releases: [{ approvalId: 'a1', billIds: ['10'] }],
        reason: 'rejected',
        now,
      })
      .then([]);
  });

  it('flags a bill like one already in an approval (other id); it needs a confirmation, which is recorded', () => {
    const history = [claimed('a1', [['10', a]])];
    let thrown: unknown;
    try {
      approvalBillsDecider.decide(
        claim('a2', [['20', a]]),
        history.reduce(approvalBillsDecider.evolve, approvalBillsDecider.initialState()),
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DuplicateBillsError);
    expect((thrown as DuplicateBillsError).duplicates).toEqual([
      { billId: '20', matchesBillId: '10', matchesApprovalId: 'a1', paid: false },
    ]);
    spec
      .given(history)
      .when(claim('a2', [['20', a]]))
      .thenRefuses('CONFLICT', /Possible duplicate/);
    spec
      .given(history)
      .when(claim('a2', [['20', a]], ['20']))
      .then([
        claimed(
          'a2',
          [['20', a]],
          [{ billId: '20', matchesBillId: '10', matchesApprovalId: 'a1', paid: false }],
        ),
      ]);
  });

  it('flags a bill like one already paid in QuickBooks the same way', () => {
    const paidClaim = { ...claim('a2', [['21', b]]), paidLookalikes: [{ billId: '21', matchesBillId: '7' }] };
    spec
      .given([])
      .when(paidClaim)
      .thenRefuses('CONFLICT', /matches paid bill 7/);
    spec
      .given([])
      .when({ ...paidClaim, confirmDuplicates: ['21'] })
      .then([
        claimed(
          'a2',
          [['21', b]],
          [{ billId: '21', matchesBillId: '7', matchesApprovalId: null, paid: true }],
        ),
      ]);
  });

  it('a deleted approval leaves the duplicate guard', () => {
    const history = [claimed('a1', [['10', a]])];
    const forgotten: ApprovalBillsEvent = {
      type: 'ApprovalBillsReleased',
      data: { companyId: 2, approvalId: 'a1', billIds: ['10'], reason: 'deleted', forget: true, at: now },
    };
    spec
      .given(history)
      .when({
        type: 'ReleaseBills',
        companyId: 2,
        releases: [{ approvalId: 'a1', billIds: ['10'] }],
        reason: 'deleted',
        now,
      })
      .then([forgotten]);
    spec
      .given([...history, forgotten])
      .when(claim('a2', [['20', a]]))
      .then([claimed('a2', [['20', a]])]);
  });
});
