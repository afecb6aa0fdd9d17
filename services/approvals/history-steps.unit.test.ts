// The history's steps from events alone: who acted (user, e-mail link recipient, the system job named
// from its command id), what changed (old → new, from the decider's fold), the reason given, the file;
// the company's policy in force and changed, vendors' banking unmasked, in log order; an audit export
// read by name; erased fields shown as erased.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent, BillSnapshot } from '../../schema/approvals/events.js';
import { storedEvents } from '../../test/support/stored-events.js';
import type { StoredEvent } from '../eventstore/port.js';
import { historyEntries } from './history.js';
import { systemActorName } from './history-steps.js';

const at = '2026-11-25T10:00:00.000Z';
const bill = (id: string, amount: number, vendor = '55'): BillSnapshot => ({
  Id: id,
  DocNumber: `INV-${id}`,
  TxnDate: null,
  DueDate: null,
  TotalAmt: amount,
  Balance: amount,
  CurrencyRef: 'USD',
  VendorRef: { value: vendor, name: vendor === '55' ? 'Acme Paper' : 'Bolt Supply' },
  VendorInfo: { CompanyName: null },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
});
const ids = { approvalId: 'a1', companyId: 2 };

const stored = storedEvents(at);
const user = (id: number) => ({ userId: String(id), commandId: randomUUID() });
const job = (pm: string) => ({ userId: null, commandId: `${pm}_${randomUUID()}_0` });
const A = 'approval-a1';
const P = 'approvalpolicy-2';
const V55 = 'vendor-2-55';

const policy = (threshold: number | null, by = 7) =>
  stored(
    P,
    {
      type: 'ApprovalPolicySet',
      data: {
        companyId: 2,
        creatorMayNotApprove: true,
        secondApprovalThreshold: threshold,
        byUserId: by,
        at,
      },
    },
    user(by),
  );
const unmask = (stream: string, by = 8) =>
  stored(stream, { type: 'VendorBankingUnmasked', data: { vendorId: 31, byUserId: by, at } }, user(by));

const oldPolicy = policy(5000);
const inForce = policy(1000);
const created = stored(
  A,
  {
    type: 'ApprovalCreated',
    data: {
      ...ids,
      priority: 'HIGH',
      managerId: 2,
      createdBy: 7,
      bills: [bill('10', 400), bill('11', 600, '56')],
      vendorContacts: [],
      recipients: ['pat@payer.test'],
      confirmedDuplicates: [],
      expiresAt: at,
      at,
    },
  },
  user(7),
);
const updated = stored(
  A,
  { type: 'ApprovalUpdated', data: { ...ids, priority: 'LOW', managerId: 3, at } },
  user(7),
);
const changedPolicy = policy(null, 9);
const unmasked = unmask(V55);
const approved = stored(
  A,
  {
    type: 'ApprovalApproved',
    data: { ...ids, approvedBillIds: ['10'], byUserId: 8, firstApprovedBy: null, at },
  },
  user(8),
);
const afterDecision = policy(2000);
const requested = stored(
  A,
  {
    type: 'NachaGenerationRequested',
    data: { ...ids, version: 1, reason: 'approved', byUserId: null, at },
  },
  job('payments'),
);
const generated = stored(
  A,
  {
    type: 'NachaFileGenerated',
    data: {
      ...ids,
      version: 1,
      fileId: 'f1',
      fileName: 'ACH_1.txt',
      batchNumber: 1,
      fileIdModifier: 'A',
      effectiveDate: '2026-11-26',
      entryCount: 1,
      totalCreditCents: 40_000,
      totalDebitCents: 0,
      balanced: false,
      vendors: [],
      skippedBills: [],
      at,
    },
  },
  job('payments'),
);
const downloaded = stored(
  A,
  { type: 'NachaFileDownloaded', data: { ...ids, fileId: 'f1', kind: 'payment', byUserId: 8, at } },
  user(8),
);
const confirmed = stored(
  A,
  {
    type: 'BankUploadConfirmed',
    data: { ...ids, fileVersion: 1, byUserId: null, linkId: 'l1', recipient: 'pat@payer.test', at },
  },
  { userId: null, commandId: randomUUID() },
);
const exported = stored(A, { type: 'ApprovalAuditExported', data: { ...ids, byUserId: 7, at } }, user(7));

const own = [created, updated, approved, requested, generated, downloaded, confirmed, exported];
const names = {
  users: new Map([
    [7, 'Ada Lovelace'],
    [8, 'Mona Test'],
    [9, 'Pol Icy'],
  ]),
  managers: new Map([
    [2, 'Max Manager'],
    [3, 'Nia Manager'],
  ]),
};
const around = {
  policy: [oldPolicy, inForce, changedPolicy, afterDecision],
  vendors: [unmask(V55), unmasked],
};
// The first unmask predates the approval; ordering is by position, whatever the read order.
around.vendors[0] = { ...around.vendors[0], position: '00000001' };

describe('history steps', () => {
  const history = historyEntries(own, names, around);
  const byId = (e: StoredEvent) => history.find((h) => h.id === e.id)!;

  it('interleaves the streams around the approval by log position', () => {
    expect(history.map((h) => [h.position, h.stream, h.action])).toEqual([
      [inForce.position, P, 'Approval policy in force'],
      [created.position, A, 'Created'],
      [updated.position, A, 'Updated'],
      [changedPolicy.position, P, 'Approval policy changed'],
      [unmasked.position, V55, 'Vendor banking unmasked'],
      [approved.position, A, 'Approved'],
      [requested.position, A, 'NACHA file requested'],
      [generated.position, A, 'NACHA file generated'],
      [downloaded.position, A, 'NACHA file downloaded'],
      [confirmed.position, A, 'Bank upload confirmed'],
      [exported.position, A, 'Audit bundle exported'],
    ]);
    // Before creation only the policy then in force; after the decision no policy change.
    expect(history.map((h) => h.id)).not.toContain(oldPolicy.id);
    expect(history.map((h) => h.id)).not.toContain(afterDecision.id);
  });

  it('names the actor: a user, the system job from its command id, a link’s recipient', () => {
    expect(byId(created)).toMatchObject({ actorKind: 'user', userId: 7, userName: 'Ada Lovelace' });
    expect(byId(requested)).toMatchObject({
      actorKind: 'system',
      userId: null,
      userName: 'System (payments job)',
    });
    expect(byId(confirmed)).toMatchObject({
      actorKind: 'link-recipient',
      userName: 'pat@payer.test (e-mail link)',
    });
    expect(byId(changedPolicy)).toMatchObject({ actorKind: 'user', userName: 'Pol Icy' });
    expect(byId(unmasked)).toMatchObject({
      actorKind: 'user',
      userName: 'Mona Test',
      details: 'Acme Paper: full bank numbers shown',
    });
    expect(byId(exported)).toMatchObject({
      actorKind: 'user',
      userName: 'Ada Lovelace',
      details: 'The events as stored, their proofs to the published anchors, the decrypted view',
      changes: [],
    });
    // Exported from the command line: no user.
    const cli = stored(A, { type: 'ApprovalAuditExported', data: { ...ids, byUserId: null, at } });
    expect(historyEntries([created, cli], names)[1]).toMatchObject({
      actorKind: 'system',
      userName: 'System (audit export, command line)',
    });
    expect(systemActorName({ metadata: { commandId: 'payment-mail_x_1' } })).toBe(
      'System (payment mail job)',
    );
    expect(systemActorName({ metadata: {} })).toBe('System');
  });

  it('says what each step changed, old → new, from the fold before and after it', () => {
    expect(byId(created).changes).toEqual([
      { field: 'status', from: null, to: 'Pending' },
      { field: 'priority', from: null, to: 'High' },
      { field: 'manager', from: null, to: 'Max Manager' },
      { field: 'recipients', from: null, to: '1 recipient' },
      { field: 'bills', from: null, to: '2 bills' },
    ]);
    expect(byId(updated).changes).toEqual([
      { field: 'priority', from: 'High', to: 'Low' },
      { field: 'manager', from: 'Max Manager', to: 'Nia Manager' },
    ]);
    expect(byId(approved).changes).toEqual([
      { field: 'status', from: 'Pending', to: 'Approved' },
      { field: 'approvedBills', from: null, to: '10' },
    ]);
    expect(byId(requested).changes).toEqual([
      { field: 'status', from: 'Approved', to: 'NACHA Pending' },
      { field: 'nachaVersion', from: null, to: '1' },
      { field: 'nachaStatus', from: null, to: 'Generating' },
    ]);
    expect(byId(generated).changes).toEqual([
      { field: 'status', from: 'NACHA Pending', to: 'NACHA Generated' },
      { field: 'nachaStatus', from: 'Generating', to: 'Generated' },
      { field: 'nachaFile', from: null, to: 'ACH_1.txt (v1)' },
    ]);
    expect(byId(downloaded).changes).toEqual([]);
    expect(byId(changedPolicy).changes).toEqual([
      { field: 'secondApprovalThreshold', from: '$1,000.00', to: null },
    ]);
    // Against the policy it replaced (before the approval, so not a step of its own).
    expect(byId(inForce).changes).toEqual([
      { field: 'secondApprovalThreshold', from: '$5,000.00', to: '$1,000.00' },
    ]);
  });

  it('writes people’s words: statuses as their badges say them, recipients counted, no codes', () => {
    const noRecipients = stored(
      A,
      {
        type: 'ApprovalCreated',
        data: {
          ...(created.data as Extract<ApprovalEvent, { type: 'ApprovalCreated' }>['data']),
          recipients: [],
        },
      },
      user(7),
    );
    const recipients = (list: string[]) =>
      stored(A, { type: 'ApprovalRecipientsUpdated', data: { ...ids, recipients: list, at } }, user(7));
    const two = recipients(['x@y.test', 'z@y.test']);
    const none = recipients([]);
    const paid = stored(
      A,
      {
        type: 'PaymentCompleted',
        data: { ...ids, byUserId: 8, linkId: null, recipient: null, at },
      } as ApprovalEvent,
      user(8),
    );
    const syncStarted = stored(
      A,
      {
        type: 'QbPaymentSyncStarted',
        data: { ...ids, attempt: 1, billIds: ['10'], byUserId: null, at },
      },
      job('payments'),
    );
    const syncFinished = stored(
      A,
      {
        type: 'QbPaymentSyncFinished',
        data: { ...ids, attempt: 1, status: 'PARTIAL_SUCCESS', message: '1 of 2 paid', at },
      },
      job('payments'),
    );
    const h = historyEntries(
      [noRecipients, two, none, approved, requested, generated, confirmed, paid, syncStarted, syncFinished],
      names,
    );
    const step = (e: StoredEvent) => h.find((x) => x.id === e.id)!;
    // No recipients at creation is no change; then a readable count each way.
    expect(step(noRecipients).changes.map((c) => c.field)).not.toContain('recipients');
    expect(step(two)).toMatchObject({
      details: '2 recipients',
      changes: [{ field: 'recipients', from: null, to: '2 recipients' }],
    });
    expect(step(none)).toMatchObject({
      details: 'No recipients',
      changes: [{ field: 'recipients', from: '2 recipients', to: null }],
    });
    expect(step(confirmed).changes).toContainEqual({
      field: 'status',
      from: 'NACHA Generated',
      to: 'Bank Uploaded',
    });
    expect(step(paid).changes).toContainEqual({
      field: 'status',
      from: 'Bank Uploaded',
      to: 'Payment Completed',
    });
    expect(step(syncStarted)).toMatchObject({
      details: '1 bill to pay, attempt 1',
      changes: expect.arrayContaining([{ field: 'qbSyncStatus', from: 'Pending', to: 'Syncing' }]),
    });
    expect(step(syncFinished)).toMatchObject({
      action: 'QuickBooks payment sync partly succeeded',
      changes: expect.arrayContaining([{ field: 'qbSyncStatus', from: 'Syncing', to: 'Partial Success' }]),
    });
    expect(step(generated).details).toMatch(/^ACH_1\.txt: 1 entry, \$400\.00 to 0 vendors,/);
    // No code a person would have to decode: neither UPPER_CASE statuses nor bare counts.
    const said = h.flatMap((x) => [x.action, x.details ?? '', ...x.changes.flatMap((c) => [c.from, c.to])]);
    for (const text of said) expect(text ?? '').not.toMatch(/\b[A-Z]+_[A-Z_]+\b|^(PENDING|APPROVED)$/);
    expect(
      h.flatMap((x) => x.changes).filter((c) => c.field === 'recipients' && /^\d+$/.test(c.to ?? '')),
    ).toEqual([]);
  });

  it('gives the reason and the file that belong to a step', () => {
    expect(byId(requested).reason).toBe('The approval was approved');
    expect(byId(generated).downloadUrl).toBe('/api/bill-approval/approvals/a1/nacha-files/f1');
    expect(byId(downloaded).downloadUrl).toBe('/api/bill-approval/approvals/a1/nacha-files/f1');
    expect(byId(created).reason).toBeNull();
    const rejected = stored(
      A,
      { type: 'ApprovalRejected', data: { ...ids, reason: 'Wrong vendor', byUserId: 8, at } },
      user(8),
    );
    const failed = stored(
      A,
      {
        type: 'NachaGenerationFailed',
        data: { ...ids, version: 1, reason: 'Acme has no banking information', problems: [], at },
      },
      job('payments'),
    );
    const [, r] = historyEntries([created, rejected], names);
    expect(r).toMatchObject({
      action: 'Rejected',
      reason: 'Wrong vendor',
      changes: [{ field: 'status', from: 'Pending', to: 'Rejected' }],
    });
    const f = historyEntries([created, approved, requested, failed], names)[3];
    expect(f).toMatchObject({ reason: 'Acme has no banking information', userName: 'System (payments job)' });
    expect(f.changes).toEqual([{ field: 'nachaStatus', from: 'Generating', to: 'Needs attention' }]);
  });

  it('shows a forgotten subject’s fields as [erased] and still loads', () => {
    const erasedCreated: StoredEvent = {
      ...created,
      data: { ...(created.data as object), recipients: null, vendorContacts: null },
      erased: ['vendorContacts', 'recipients'],
    };
    const erasedConfirm: StoredEvent = {
      ...confirmed,
      data: { ...(confirmed.data as object), recipient: null },
      erased: ['recipient'],
    };
    const recipients = stored(
      A,
      { type: 'ApprovalRecipientsUpdated', data: { ...ids, recipients: ['x@y.test', 'z@y.test'], at } },
      user(7),
    );
    const h = historyEntries(
      [erasedCreated, recipients, approved, requested, generated, erasedConfirm],
      names,
    );
    expect(h[0].changes).toContainEqual({ field: 'recipients', from: null, to: '[erased]' });
    expect(h[1].changes).toEqual([{ field: 'recipients', from: '[erased]', to: '2 recipients' }]);
    expect(h[1].details).toBe('2 recipients');
    expect(h[5]).toMatchObject({ actorKind: 'link-recipient', userName: '[erased] (e-mail link)' });
    expect(JSON.stringify(h)).not.toContain('pat@payer.test');
  });

  it('keeps unmasks to the approval’s life: none after it closed', () => {
    const expired = stored(A, { type: 'ApprovalExpired', data: { ...ids, at } });
    const late = unmask(V55);
    const h = historyEntries([created, expired], names, { policy: [], vendors: [unmasked, late] });
    expect(h.map((x) => x.action)).toEqual(['Created', 'Vendor banking unmasked', 'Expired']);
    expect(h.map((x) => x.id)).not.toContain(late.id);
  });
});
