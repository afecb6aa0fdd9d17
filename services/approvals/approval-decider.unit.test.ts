import { describe, it } from 'vitest';
import type { ApprovalEvent, ApprovedBanking } from '../../schema/approvals/events.js';
import { billSnapshot } from '../../test/support/bills.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { approvalDecider } from './approval-decider.js';
import type { ApprovalPolicy, SegregationPolicy } from './policy-decider.js';

/** A company that turned segregation of duties off. */
const OFF: ApprovalPolicy = {
  creatorMayNotApprove: false,
  secondApprovalThreshold: null,
  assignedStaffOnly: true,
};
const now = '2026-11-25T10:00:00.000Z';
const later = '2026-11-25T11:00:00.000Z';
const bill = (id: string, amount: number) =>
  billSnapshot(id, amount, {
    Line: [
      { Id: '1', Description: 'Paper', Amount: amount, Qty: null, ItemName: null, AccountName: 'Supplies' },
    ],
  });
const bills = [bill('10', 400), bill('11', 700)];
const created: ApprovalEvent = {
  type: 'ApprovalCreated',
  data: {
    approvalId: 'a1',
    companyId: 2,
    priority: 'HIGH',
    managerId: 3,
    createdBy: 7,
    bills,
    vendorContacts: [{ qbVendorId: '55', email: 'ap@acme.example', phone: null }],
    recipients: ['cfo@client.example'],
    confirmedDuplicates: [],
    expiresAt: '2026-12-02T10:00:00.000Z',
    at: now,
  },
};
/** What an approver is shown of vendor 55 (every bill's here) when it has no banking. */
const NO_BANKING: ApprovedBanking[] = [
  { qbVendorId: '55', fingerprint: null, routingLast4: null, accountLast4: null },
];
const approved = (ids: string[], by = 8, first: number | null = null): ApprovalEvent => ({
  type: 'ApprovalApproved',
  data: {
    approvalId: 'a1',
    companyId: 2,
    approvedBillIds: ids,
    byUserId: by,
    firstApprovedBy: first,
    approvedBanking: NO_BANKING,
    at: later,
  },
});
const rejected: ApprovalEvent = {
  type: 'ApprovalRejected',
  data: { approvalId: 'a1', companyId: 2, reason: 'Wrong amounts', byUserId: 8, at: later },
};
const expired: ApprovalEvent = {
  type: 'ApprovalExpired',
  data: { approvalId: 'a1', companyId: 2, at: later },
};
const deleted: ApprovalEvent = {
  type: 'ApprovalDeleted',
  data: { approvalId: 'a1', companyId: 2, byUserId: 8, at: later },
};
const approve = (ids: string[], byUserId = 8, policy: SegregationPolicy = OFF) => ({
  type: 'ApproveApproval' as const,
  approvedBillIds: ids,
  byUserId,
  policy,
  managerEmail: 'mgr@client.example' as string | null,
  banking: [] as ApprovedBanking[],
  now: later,
});

describe('approval decider', () => {
  const spec = deciderSpec(approvalDecider);

  it('creates a PENDING approval with its snapshot; creating it again changes nothing', () => {
    const { createdBy, at, ...rest } = created.data;
    const command = { type: 'CreateApproval' as const, ...rest, byUserId: createdBy, now: at };
    spec.given([]).when(command).then([created]);
    spec.given([created]).when(command).then([]);
    spec
      .given([created])
      .when({ ...command, approvalId: 'other' })
      .thenRefuses('CONFLICT');
    spec
      .given([])
      .when({ ...command, bills: [] })
      .thenRefuses('VALIDATION', /at least one bill/);
  });

  it('approves a subset of its bills', () => {
    spec
      .given([created])
      .when(approve(['11']))
      .then([approved(['11'])]);
    spec
      .given([created])
      .when(approve(['10', '11']))
      .then([approved(['10', '11'])]);
  });

  it('refuses an approval with no bill, a foreign bill or a bill twice', () => {
    spec
      .given([created])
      .when(approve([]))
      .thenRefuses('VALIDATION', /at least one bill/);
    spec
      .given([created])
      .when(approve(['10', '99']))
      .thenRefuses('VALIDATION', /Not a bill of this approval: 99/);
    spec
      .given([created])
      .when(approve(['10', '10']))
      .thenRefuses('VALIDATION', /twice/);
  });

  it('refuses to approve an approval nobody could confirm: no manager with an e-mail and no recipients', () => {
    const nobody: ApprovalEvent = { ...created, data: { ...created.data, managerId: null, recipients: [] } };
    const managerOnly: ApprovalEvent = { ...created, data: { ...created.data, recipients: [] } };
    const recipientOnly: ApprovalEvent = { ...created, data: { ...created.data, managerId: null } };
    for (const given of [nobody, managerOnly])
      spec
        .given([given])
        .when({ ...approve(['10']), managerEmail: null })
        .thenRefuses('CONFLICT', /nobody could confirm its payment.*add a recipient/i);
    spec
      .given([managerOnly])
      .when(approve(['10']))
      .then([approved(['10'])]);
    spec
      .given([recipientOnly])
      .when({ ...approve(['10']), managerEmail: null })
      .then([approved(['10'])]);
  });

  it('refuses to approve, reject or update anything but PENDING', () => {
    for (const past of [approved(['10']), rejected, expired]) {
      spec
        .given([created, past])
        .when(approve(['10']))
        .thenRefuses('CONFLICT', /Cannot approve an approval with status/);
      spec
        .given([created, past])
        .when({ type: 'RejectApproval', reason: 'x', byUserId: 8, now: later })
        .thenRefuses('CONFLICT', /Cannot reject/);
      spec
        .given([created, past])
        .when({ type: 'UpdateApproval', priority: 'LOW', now: later })
        .thenRefuses('CONFLICT', /Cannot update/);
    }
  });

  it('rejects with a trimmed reason; refuses a blank or too long one', () => {
    spec
      .given([created])
      .when({ type: 'RejectApproval', reason: '  Wrong amounts ', byUserId: 8, now: later })
      .then([rejected]);
    spec
      .given([created])
      .when({ type: 'RejectApproval', reason: '   ', byUserId: 8, now: later })
      .thenRefuses('VALIDATION', /reason for rejection/);
    spec
      .given([created])
      .when({ type: 'RejectApproval', reason: 'x'.repeat(1001), byUserId: 8, now: later })
      .thenRefuses('VALIDATION', /at most 1000/);
  });

  it('expires a PENDING approval, and is a no-op for any other status', () => {
    spec.given([created]).when({ type: 'ExpireApproval', now: later }).then([expired]);
    for (const past of [approved(['10']), rejected, expired])
      spec.given([created, past]).when({ type: 'ExpireApproval', now: later }).then([]);
  });

  it('updates priority, manager and recipients while PENDING, only what changed', () => {
    spec
      .given([created])
      .when({
        type: 'UpdateApproval',
        priority: 'URGENT',
        managerId: null,
        recipients: ['a@b.example'],
        now: later,
      })
      .then([
        {
          type: 'ApprovalUpdated',
          data: { approvalId: 'a1', companyId: 2, priority: 'URGENT', managerId: null, at: later },
        },
        {
          type: 'ApprovalRecipientsUpdated',
          data: { approvalId: 'a1', companyId: 2, recipients: ['a@b.example'], at: later },
        },
      ]);
    spec
      .given([created])
      .when({ type: 'UpdateApproval', priority: 'HIGH', managerId: 3, now: later })
      .then([]);
  });

  it('changes recipients while open (approved too), not once rejected or expired', () => {
    const change = { type: 'UpdateRecipients' as const, recipients: ['x@y.example'], now: later };
    const event: ApprovalEvent = {
      type: 'ApprovalRecipientsUpdated',
      data: { approvalId: 'a1', companyId: 2, recipients: ['x@y.example'], at: later },
    };
    spec.given([created]).when(change).then([event]);
    spec
      .given([created, approved(['10'])])
      .when(change)
      .then([event]);
    spec
      .given([created])
      .when({ ...change, recipients: ['cfo@client.example'] })
      .then([]);
    spec
      .given([created, rejected])
      .when(change)
      .thenRefuses('CONFLICT', /recipients/);
    spec
      .given([created, expired])
      .when(change)
      .thenRefuses('CONFLICT', /recipients/);
  });

  it('deletes from every status reached so far; a deleted approval is not found', () => {
    const del = { type: 'DeleteApproval' as const, byUserId: 8, now: later };
    for (const past of [[], [approved(['10'])], [rejected], [expired]])
      spec
        .given([created, ...past])
        .when(del)
        .then([deleted]);
    spec.given([created, deleted]).when(del).thenRefuses('NOT_FOUND');
    spec
      .given([created, deleted])
      .when(approve(['10']))
      .thenRefuses('NOT_FOUND');
    spec
      .given([])
      .when(approve(['10']))
      .thenRefuses('NOT_FOUND');
  });

  it('segregation of duties: the creator may not approve when the policy says so', () => {
    const policy = { creatorMayNotApprove: true, secondApprovalThreshold: null };
    spec
      .given([created])
      .when(approve(['10'], 7, policy))
      .thenRefuses('FORBIDDEN', /creator/);
    spec
      .given([created])
      .when(approve(['10'], 7))
      .then([approved(['10'], 7)]);
    spec
      .given([created])
      .when(approve(['10'], 8, policy))
      .then([approved(['10'], 8)]);
  });

  it('segregation of duties: above the threshold a second, different approver completes it', () => {
    const policy = { creatorMayNotApprove: false, secondApprovalThreshold: 500 };
    const first: ApprovalEvent = {
      type: 'ApprovalFirstApproved',
      data: {
        approvalId: 'a1',
        companyId: 2,
        approvedBillIds: ['10', '11'],
        byUserId: 8,
        amount: 1100,
        threshold: 500,
        approvedBanking: NO_BANKING,
        at: later,
      },
    };
    spec
      .given([created])
      .when(approve(['10', '11'], 8, policy))
      .then([first]);
    // At or below the threshold one approval is enough.
    spec
      .given([created])
      .when(approve(['10'], 8, policy))
      .then([approved(['10'], 8)]);
    spec
      .given([created, first])
      .when(approve(['10', '11'], 8, policy))
      .thenRefuses('FORBIDDEN', /second, different/);
    // The first approver may not complete it with a smaller subset either (no bypass below the threshold).
    spec
      .given([created, first])
      .when(approve(['10'], 8, policy))
      .thenRefuses('FORBIDDEN', /second, different/);
    // Once the company no longer asks for two approvers, the first one may complete it.
    spec
      .given([created, first])
      .when(approve(['10'], 8))
      .then([approved(['10'], 8, 8)]);
    spec
      .given([created, first])
      .when(approve(['10', '11'], 9, policy))
      .then([approved(['10', '11'], 9, 8)]);
    // Still PENDING after the first approval: it can be rejected.
    spec
      .given([created, first])
      .when({ type: 'RejectApproval', reason: 'Wrong amounts', byUserId: 8, now: later })
      .then([rejected]);
  });
});

describe('dual control covers every bill it approves', () => {
  const spec = deciderSpec(approvalDecider);
  // X and Y both above the threshold of 1,000.
  const xy: ApprovalEvent = {
    ...created,
    data: {
      ...(created.data as Extract<ApprovalEvent, { type: 'ApprovalCreated' }>['data']),
      bills: [bill('X', 1500), bill('Y', 1200)],
    },
  } as ApprovalEvent;
  const policy = { creatorMayNotApprove: true, secondApprovalThreshold: 1000 };
  const firstBy = (
    by: number,
    ids: string[],
    amount: number,
    supersedes?: { byUserId: number; approvedBillIds: string[] },
  ): ApprovalEvent => ({
    type: 'ApprovalFirstApproved',
    data: {
      approvalId: 'a1',
      companyId: 2,
      approvedBillIds: ids,
      byUserId: by,
      amount,
      threshold: 1000,
      ...(supersedes ? { supersedes } : {}),
      approvedBanking: NO_BANKING,
      at: later,
    },
  });
  const A = 8;
  const B = 9;

  it('a second approver who picks other bills starts it over instead of approving them alone', () => {
    spec
      .given([xy])
      .when(approve(['X'], A, policy))
      .then([firstBy(A, ['X'], 1500)]);
    // B chose Y, which A never approved: B becomes the first approver of Y, still PENDING.
    spec
      .given([xy, firstBy(A, ['X'], 1500)])
      .when(approve(['Y'], B, policy))
      .then([firstBy(B, ['Y'], 1200, { byUserId: A, approvedBillIds: ['X'] })]);
    // A may now complete B's choice: Y has two approvers on record.
    spec
      .given([xy, firstBy(A, ['X'], 1500), firstBy(B, ['Y'], 1200, { byUserId: A, approvedBillIds: ['X'] })])
      .when(approve(['Y'], A, policy))
      .then([approved(['Y'], A, B)]);
    // Adding a bill to what the first approved starts over too.
    spec
      .given([xy, firstBy(A, ['X'], 1500)])
      .when(approve(['X', 'Y'], B, policy))
      .then([firstBy(B, ['X', 'Y'], 2700, { byUserId: A, approvedBillIds: ['X'] })]);
  });

  it('the same bills, or fewer, complete it with both approvers on record', () => {
    spec
      .given([xy, firstBy(A, ['X', 'Y'], 2700)])
      .when(approve(['X', 'Y'], B, policy))
      .then([approved(['X', 'Y'], B, A)]);
    spec
      .given([xy, firstBy(A, ['X', 'Y'], 2700)])
      .when(approve(['Y'], B, policy))
      .then([approved(['Y'], B, A)]);
  });
});
