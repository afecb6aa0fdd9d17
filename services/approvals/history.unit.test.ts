// The approval's history from its events: the manager named (or said deleted), the amounts as numbers
// beside a plain text that formats them with thousands separators, and the approved total from the
// bills the approval was created with.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import { billSnapshot } from '../../test/support/bills.js';
import type { StoredEvent } from '../eventstore/port.js';
import { historyEntries } from './history.js';

const at = '2026-11-25T10:00:00.000Z';
const bill = billSnapshot;
const ids = { approvalId: 'a1', companyId: 2 };
let version = 0;
const stored = (event: ApprovalEvent, userId?: number): StoredEvent => {
  version++;
  return {
    id: randomUUID(),
    type: event.type,
    schemaVersion: schemaVersionOf(event.type),
    streamId: 'approval-a1',
    streamVersion: version,
    position: String(version).padStart(10, '0'),
    data: event.data,
    metadata: userId === undefined ? {} : { userId: String(userId) },
    createdAt: new Date(at),
  };
};

const events = [
  stored(
    {
      type: 'ApprovalCreated',
      data: {
        ...ids,
        priority: 'HIGH',
        managerId: 2,
        createdBy: 7,
        bills: [bill('10', 4000), bill('11', 693.45)],
        vendorContacts: [],
        recipients: [],
        confirmedDuplicates: [],
        expiresAt: at,
        at,
      },
    },
    7,
  ),
  stored({ type: 'ApprovalUpdated', data: { ...ids, managerId: 3, at } }, 7),
  stored({ type: 'ApprovalUpdated', data: { ...ids, priority: 'LOW', managerId: null, at } }, 7),
  stored(
    {
      type: 'ApprovalFirstApproved',
      data: { ...ids, approvedBillIds: ['10', '11'], byUserId: 8, amount: 4693.45, threshold: 1000, at },
    },
    8,
  ),
  stored(
    {
      type: 'ApprovalApproved',
      data: { ...ids, approvedBillIds: ['10'], byUserId: 9, firstApprovedBy: 8, at },
    },
    9,
  ),
  stored({ type: 'ApprovalExpired', data: { ...ids, at } }),
];

const names = {
  users: new Map([
    [7, 'Ada Lovelace'],
    [8, 'Mona Test'],
  ]),
  // Manager 3 was deleted: the read model no longer names it.
  managers: new Map([[2, 'Max Manager']]),
};

describe('approval history', () => {
  const history = historyEntries(events, names);

  it('names the manager an entry assigned, and says so when that manager was deleted', () => {
    expect(history[0]).toMatchObject({
      action: 'Created',
      managerName: 'Max Manager',
      details: '2 bills, $4,693.45, priority High, assigned to Max Manager',
    });
    expect(history[1]).toMatchObject({
      action: 'Updated',
      managerName: null,
      details: 'assigned to a deleted manager',
    });
    expect(history[2]).toMatchObject({ managerName: null, details: 'priority Low, manager removed' });
    expect(JSON.stringify(history)).not.toContain('manager #');
  });

  it('gives the amounts as numbers beside a text with thousands separators', () => {
    expect(history[0]).toMatchObject({ amount: 4693.45, threshold: null });
    expect(history[3]).toMatchObject({
      action: 'First approval',
      amount: 4693.45,
      threshold: 1000,
      details: '2 bills, $4,693.45: above $1,000.00, awaiting a second approver',
    });
    // The approved total, from the bills as the approval was created with them.
    expect(history[4]).toMatchObject({ action: 'Approved', amount: 4000, details: 'Approved bills: 10' });
    expect(history[5]).toMatchObject({ action: 'Expired', amount: null, managerName: null });
  });

  it('names who took each step, and the system when nobody did', () => {
    expect(history.map((h) => h.userName)).toEqual([
      'Ada Lovelace',
      'Ada Lovelace',
      'Ada Lovelace',
      'Mona Test',
      'User #9',
      'System',
    ]);
    expect(history[0]).toMatchObject({ userId: 7, downloadUrl: null, timestamp: at });
  });
});
