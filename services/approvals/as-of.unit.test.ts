// Time travel's pure fold: the approval after each event is the projection's row and the decider's
// state over the events up to it; a cut by position or by time; before the approval, nothing; an
// event stored in an older schema version is read upcast; fields whose subject was forgotten are named.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import { eventRegistry, schemaVersionOf } from '../../schema/shared/events.js';
import { billSnapshot } from '../../test/support/bills.js';
import type { StoredEvent } from '../eventstore/port.js';
import { cutOf, foldApproval, stepsOf } from './as-of.js';
import { OLD_REJECTED_UPCAST } from './as-of-old-shapes.js';

const t0 = Date.parse('2026-11-25T10:00:00.000Z');
const atMin = (m: number) => new Date(t0 + m * 60_000).toISOString();
const bill = billSnapshot;
const ids = { approvalId: 'a1', companyId: 2 };
const stored = (
  n: number,
  event: ApprovalEvent | { type: string; data: unknown },
  extra: Partial<StoredEvent> = {},
): StoredEvent => ({
  id: randomUUID(),
  type: event.type,
  schemaVersion: schemaVersionOf(event.type),
  streamId: 'approval-a1',
  streamVersion: n,
  position: `${String(n).padStart(8, '0')}:${String(n).padStart(8, '0')}`,
  data: event.data,
  metadata: {},
  createdAt: new Date(atMin(n)),
  ...extra,
});

const created = (n: number, extra: Partial<StoredEvent> = {}) =>
  stored(
    n,
    {
      type: 'ApprovalCreated',
      data: {
        ...ids,
        priority: 'HIGH',
        managerId: 2,
        createdBy: 7,
        bills: [bill('10', 4000), bill('11', 693.45)],
        vendorContacts: [{ qbVendorId: '55', email: 'ap@acme.test', phone: null }],
        recipients: ['boss@client.test'],
        confirmedDuplicates: [],
        expiresAt: atMin(60 * 24 * 7),
        at: atMin(n),
      },
    },
    extra,
  );

const events = [
  created(1),
  stored(2, { type: 'ApprovalUpdated', data: { ...ids, priority: 'LOW', at: atMin(2) } }),
  stored(3, {
    type: 'ApprovalFirstApproved',
    data: {
      ...ids,
      approvedBillIds: ['10', '11'],
      byUserId: 8,
      amount: 4693.45,
      threshold: 1000,
      at: atMin(3),
    },
  }),
  stored(4, {
    type: 'ApprovalApproved',
    data: { ...ids, approvedBillIds: ['10'], byUserId: 9, firstApprovedBy: 8, at: atMin(4) },
  }),
  stored(5, {
    type: 'NachaGenerationRequested',
    data: { ...ids, version: 1, reason: 'approved', byUserId: null, at: atMin(5) },
  }),
];

describe('foldApproval', () => {
  it('is the row and state after each event, as the projection and the decider make them', () => {
    const statuses = [1, 2, 3, 4].map((n) => foldApproval(events, n).row?.status);
    expect(statuses).toEqual(['PENDING', 'PENDING', 'PENDING', 'APPROVED']);
    const first = foldApproval(events, 1);
    expect(first.row).toMatchObject({ priority: 'HIGH', approved_bill_count: 0, total_amount: '4693.45' });
    expect(first.state.recipients).toEqual(['boss@client.test']);
    expect(foldApproval(events, 2).row?.priority).toBe('LOW');
    expect(foldApproval(events, 3).row).toMatchObject({
      awaiting_second_approval: true,
      first_approved_by: 8,
    });
    expect(foldApproval(events, 4).row).toMatchObject({
      approved_bill_ids: ['10'],
      approved_amount: '4000.00',
      approved_by: 9,
      awaiting_second_approval: false,
    });
    expect(foldApproval(events, 0).row).toBeUndefined();
  });

  it('ends in the payment statuses the projection gives', () => {
    const whole = foldApproval(events);
    expect(whole.row).toMatchObject({ status: 'NACHA_PENDING', nacha_status: 'REQUESTED', nacha_version: 1 });
    expect(whole.state.status).toBe('NACHA_PENDING');
  });

  it('names the personal fields that could not be opened, and reads the event without them', () => {
    const erased = [
      stored(
        1,
        {
          type: 'ApprovalCreated',
          data: { ...(created(1).data as object), vendorContacts: undefined, recipients: undefined },
        },
        { erased: ['vendorContacts', 'recipients'] },
      ),
      ...events.slice(1),
    ];
    const f = foldApproval(erased, 4);
    expect(f.erased).toEqual(['recipients', 'vendorContacts']);
    expect(f.row?.status).toBe('APPROVED');
    expect(f.state.vendorContacts).toEqual([]);
    expect(f.state.recipients).toEqual([]);
  });
});

describe('cutOf', () => {
  it('by position: the events at or before it; before the first, none', () => {
    expect(cutOf(events, { position: events[2].position })).toBe(3);
    expect(cutOf(events, { position: '00000000:00000009' })).toBe(0);
    expect(cutOf(events, { position: '99999999:99999999' })).toBe(5);
  });
  it('by time: the last event at or before it; neither: now', () => {
    expect(cutOf(events, { at: atMin(3.5) })).toBe(3);
    expect(cutOf(events, { at: atMin(4) })).toBe(4);
    expect(cutOf(events, { at: atMin(0) })).toBe(0);
    expect(cutOf(events, {})).toBe(5);
  });
  it('refuses both at once', () => {
    expect(() => cutOf(events, { position: events[0].position, at: atMin(1) })).toThrow(/not both/);
  });
  it('lists the steps with their positions, times and types', () => {
    expect(stepsOf(events).map((s) => [s.version, s.type, s.at])).toEqual(
      events.map((e) => [e.streamVersion, e.type, (e.data as { at: string }).at]),
    );
  });
});

describe('an event stored in an older schema version', () => {
  const def = eventRegistry.ApprovalRejected;
  const kept = def.upcasters;
  beforeAll(() => {
    def.upcasters = { ...kept, ...OLD_REJECTED_UPCAST };
  });
  afterAll(() => {
    def.upcasters = kept;
  });

  it('is folded upcast', () => {
    const old = stored(
      2,
      {
        type: 'ApprovalRejected',
        data: { approvalId: 'a1', companyId: 2, comment: 'Wrong vendor', rejectedBy: 9, date: atMin(2) },
      },
      { schemaVersion: 0 },
    );
    const f = foldApproval([events[0], old]);
    expect(f.row).toMatchObject({ status: 'REJECTED', rejection_reason: 'Wrong vendor', rejected_by: 9 });
    expect(f.row?.rejection_date?.toISOString()).toBe(atMin(2));
    expect(f.state.rejectionReason).toBe('Wrong vendor');
  });
});

describe('folding from a checkpoint', () => {
  it('gives what folding from the start gives', () => {
    const long = [
      created(1),
      ...Array.from({ length: 249 }, (_, i) =>
        stored(i + 2, {
          type: 'ApprovalUpdated',
          data: { ...ids, priority: (['LOW', 'URGENT', 'MEDIUM'] as const)[i % 3], at: atMin(i + 2) },
        }),
      ),
    ];
    const kept = new Map<number, ReturnType<typeof foldApproval>>();
    foldApproval(long, 250, [], undefined, (f) => kept.set(f.count, f));
    expect([...kept.keys()]).toEqual([100, 200]);
    for (const n of [201, 237, 250])
      expect(foldApproval(long, n, [], kept.get(200))).toEqual(foldApproval(long, n));
  });
});

describe('a step of a type this process does not register', () => {
  it('is folded as a step that changes nothing', () => {
    const odd: StoredEvent = {
      ...stored(3, { type: 'ApprovalExpired', data: { ...ids, at: atMin(3) } }),
      type: 'ApprovalSomethingLater',
    };
    const withOdd = [...events.slice(0, 2), odd];
    expect(foldApproval(withOdd)).toEqual({ ...foldApproval(events, 2), count: 3 });
    expect(stepsOf(withOdd)[2].type).toBe('ApprovalSomethingLater');
  });
});
