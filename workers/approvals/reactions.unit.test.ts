// The approvals process manager's reactions, pure: one delayed expiry job per approval at its
// expiresAt, releases after the events that free bills, the abandoned-claim check; ids from the event.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { approvalsProcessManager } from './reactions.js';

const EVENT_ID = '3f1c2a9e-0000-4000-8000-0000000000a1';
const stored = (type: string, data: unknown): StoredEvent => ({
  id: EVENT_ID,
  type,
  schemaVersion: schemaVersionOf(type),
  streamId: 'approval-x',
  streamVersion: 1,
  position: '1',
  data,
  metadata: { correlationId: 'req-9' },
  createdAt: new Date(),
});
const now = Date.parse('2026-11-25T10:00:00.000Z');
const bill = {
  Id: '10',
  DocNumber: 'INV-1',
  TxnDate: null,
  DueDate: null,
  TotalAmt: 5,
  Balance: 5,
  CurrencyRef: 'USD',
  VendorRef: { value: '55', name: 'Acme' },
  VendorInfo: { CompanyName: 'Acme' },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
};
const created = (expiresAt: string) =>
  stored('ApprovalCreated', {
    approvalId: 'a1',
    companyId: 2,
    priority: 'LOW',
    managerId: null,
    createdBy: 1,
    bills: [bill],
    vendorContacts: [],
    recipients: [],
    confirmedDuplicates: [],
    expiresAt,
    at: new Date(now).toISOString(),
  });

afterEach(() => vi.useRealTimers());

describe('approvals process manager reactions', () => {
  it('schedules one delayed expiry per approval, with the same id on every replay', () => {
    vi.useFakeTimers({ now });
    const jobs = approvalsProcessManager.react(created(new Date(now + 7 * 86_400_000).toISOString()));
    expect(jobs).toEqual([
      {
        queue: 'approvals',
        name: 'expire-approval',
        data: { approvalId: 'a1', correlationId: 'req-9', causationEventId: EVENT_ID },
        jobId: `approvals_${EVENT_ID}_0`,
        delayMs: 7 * 86_400_000,
      },
    ]);
    expect(
      approvalsProcessManager.react(created(new Date(now + 7 * 86_400_000).toISOString()))[0].jobId,
    ).toBe(jobs[0].jobId);
    // Replayed after its time (the workers were down): runs at once, still once.
    const late = approvalsProcessManager.react(created(new Date(now - 1000).toISOString()));
    expect(late[0]).not.toHaveProperty('delayMs');
  });

  it('releases bills after approve, reject, expire and delete; checks a claim 5 minutes on', () => {
    vi.useFakeTimers({ now });
    const at = new Date(now).toISOString();
    for (const [type, data] of [
      [
        'ApprovalApproved',
        { approvalId: 'a1', companyId: 2, approvedBillIds: ['10'], byUserId: 3, firstApprovedBy: null, at },
      ],
      ['ApprovalRejected', { approvalId: 'a1', companyId: 2, reason: 'No', byUserId: 3, at }],
      ['ApprovalExpired', { approvalId: 'a1', companyId: 2, at }],
      ['ApprovalDeleted', { approvalId: 'a1', companyId: 2, byUserId: 3, at }],
    ] as const)
      expect(
        approvalsProcessManager.react(stored(type, data)).map((j) => [j.name, j.data.approvalId]),
      ).toEqual([['release-bills', 'a1']]);
    const claim = approvalsProcessManager.react(
      stored('ApprovalBillsClaimed', {
        companyId: 2,
        approvalId: 'a1',
        bills: [{ billId: '10', fingerprint: 'f' }],
        confirmedDuplicates: [],
        at,
      }),
    );
    expect(claim).toMatchObject([
      { name: 'check-claim', data: { approvalId: 'a1', companyId: 2, billIds: ['10'] }, delayMs: 5 * 60_000 },
    ]);
    expect(
      approvalsProcessManager.react(
        stored('ApprovalUpdated', { approvalId: 'a1', companyId: 2, priority: 'HIGH', at }),
      ),
    ).toEqual([]);
  });
});
