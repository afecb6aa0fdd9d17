// Dismissed parked events: on record with who, when and why; not counted, never
// retried; kept when the event is parked again (a rebuild); and the columns are added to a table made
// before dismissals.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { StoredEvent } from '../eventstore/port.js';
import {
  claimRetry,
  dismissParked,
  ensureParkedTable,
  listParked,
  parkEvent,
  parkedCounts,
  requestRetry,
  retryRequests,
} from './parked.js';

let tdb: TestDatabase;
let db: Kysely<unknown>;

beforeAll(async () => {
  tdb = await createTestDatabase('parked');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  // The table as it was before dismissals.
  await sql`CREATE TABLE parked_events (
    consumer text NOT NULL, event_id uuid NOT NULL, position text NOT NULL, stream_id text NOT NULL,
    stream_version bigint NOT NULL, event_type text NOT NULL, error text NOT NULL, attempts int NOT NULL,
    parked_at timestamptz NOT NULL DEFAULT now(), retry_requested_at timestamptz,
    PRIMARY KEY (consumer, event_id))`.execute(db);
});
afterAll(async () => {
  await tdb?.drop();
});

const event = (): StoredEvent => ({
  id: randomUUID(),
  type: 'UserProfileUpdated',
  schemaVersion: 1,
  streamId: 'user-7',
  streamVersion: 2,
  position: '0000000000000010:0000000000000001',
  data: {},
  metadata: {} as StoredEvent['metadata'],
  createdAt: new Date(),
});

describe('dismissed parked events', () => {
  it('adds the dismissal columns to an older table, and to a fresh one', async () => {
    await ensureParkedTable(db);
    await ensureParkedTable(db);
    const e = event();
    await parkEvent(db, 'activity', e, new Error('boom'), 3);
    expect((await listParked(db, 'activity'))[0]).toMatchObject({ eventId: e.id, dismissedAt: null });
  });

  it('is on record, not counted, not retried, and stays dismissed when parked again', async () => {
    const e = event();
    await parkEvent(db, 'pm:test', e, new Error('no handler'), 2);
    const before = (await parkedCounts(db))['pm:test'];
    expect(await requestRetry(db, 'pm:test', e.id)).toBe(true);
    expect(await dismissParked(db, 'pm:test', e.id, 42, 'Known bad data')).toBe('dismissed');
    expect(await dismissParked(db, 'pm:test', e.id, 42, 'again')).toBe('already dismissed');
    expect(await dismissParked(db, 'pm:test', randomUUID(), 42, 'none')).toBe('not found');
    expect((await parkedCounts(db))['pm:test'] ?? 0).toBe(before - 1);
    // The retry asked for before is withdrawn, and no other can be asked for or taken.
    expect(await retryRequests(db, 'pm:test')).toEqual([]);
    expect(await requestRetry(db, 'pm:test', e.id)).toBe(false);
    expect(await claimRetry(db, 'pm:test', e.id)).toBe(false);
    const row = (await listParked(db, 'pm:test')).find((p) => p.eventId === e.id);
    expect(row).toMatchObject({ dismissedBy: 42, dismissReason: 'Known bad data', retryRequestedAt: null });
    expect(row?.dismissedAt).toBeInstanceOf(Date);
    // Parked again (a rebuild fails on it once more): new error, still dismissed.
    await parkEvent(db, 'pm:test', e, new Error('still no handler'), 1);
    expect((await listParked(db, 'pm:test')).find((p) => p.eventId === e.id)).toMatchObject({
      error: 'still no handler',
      dismissReason: 'Known bad data',
      dismissedBy: 42,
    });
    expect((await parkedCounts(db))['pm:test'] ?? 0).toBe(before - 1);
  });
});
