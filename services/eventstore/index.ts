// Picks the event store: KurrentDB when EVENTSTORE_URL is set, else Postgres (the default).
import type pg from 'pg';
import { createPool } from '../shared/db.js';
import type { EventStore } from './port.js';
import { PostgresEventStore } from './postgres.js';

export async function createEventStore(opts: {
  databaseUrl?: string;
  pool?: pg.Pool;
  eventstoreUrl?: string;
}): Promise<EventStore> {
  if (opts.eventstoreUrl) {
    const { KurrentDbEventStore } = await import('./kurrentdb.js');
    const store: EventStore = new KurrentDbEventStore(opts.eventstoreUrl);
    await store.init();
    return store;
  }
  const pool = opts.pool ?? createPool({ connectionString: opts.databaseUrl });
  const store = new PostgresEventStore(pool);
  await store.init();
  return store;
}
