// Managers read model: events in, rows out (links from the managerlinks stream included), and a
// replay over the rows it wrote changes nothing.
import { describe, expect, it } from 'vitest';
import type { ManagerEvent } from '../../schema/managers/events.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { managersProjection } from './managers.js';

const spec = projectionSpec(managersProjection);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-02T10:00:00.000Z';
const stored = (event: ManagerEvent, streamId = `manager-${event.data.managerId}`) =>
  storedEvent(event, { streamId, at: t1 });

const created = (managerId: number, email: string): ManagerEvent => ({
  type: 'ManagerCreated',
  data: {
    managerId,
    firstName: 'Mia',
    lastName: 'Ross',
    email,
    phone: null,
    title: 'CFO',
    status: 'ACTIVE',
    createdAt: t0,
  },
});

const history = [
  stored(created(1, 'one@example.com')),
  stored(created(2, 'two@example.com')),
  stored({ type: 'ManagerUserLinked', data: { managerId: 1, userId: 7, at: t1 } }, 'managerlinks'),
  stored({ type: 'ManagerUpdated', data: { managerId: 2, phone: '555-0100', title: null, updatedAt: t1 } }),
  stored({ type: 'ManagerUserLinked', data: { managerId: 2, userId: 8, at: t1 } }, 'managerlinks'),
  stored({ type: 'ManagerUserUnlinked', data: { managerId: 2, userId: 8, at: t1 } }, 'managerlinks'),
  stored({ type: 'ManagerDeleted', data: { managerId: 2, at: t1 } }),
];

describe('managers projection', () => {
  it('turns the history into the expected rows, and notifies each change', async () => {
    await spec.when(history).then(async ({ read, notices }) => {
      const rows = await read('managers', { orderBy: 'id' });
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        id: 1,
        email: 'one@example.com',
        title: 'CFO',
        status: 'ACTIVE',
        user_id: 7,
        created_at: new Date(t0),
        deleted_at: null,
      });
      expect(rows[1]).toMatchObject({
        id: 2,
        phone: '555-0100',
        title: null,
        user_id: null,
        deleted_at: new Date(t1),
      });
      expect(notices.map((n) => `${n.topic}:${n.id}`)).toEqual([
        'manager:1',
        'manager:2',
        'manager:1',
        'manager:2',
        'manager:2',
        'manager:2',
        'manager:2',
      ]);
      // A batch replayed after a crash (before its checkpoint moved) leaves the same rows.
      await spec.given(history).when(history).thenRows('managers', rows, { orderBy: 'id' });
    });
  });
});
