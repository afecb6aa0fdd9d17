// The event store as every part of the product opens it: the adapter (Postgres or KurrentDB) behind
// the personal-data layer, so whoever reads the log (the roles, the rebuild CLI, the migration) sees
// personal fields opened and writes them sealed.
import type pg from 'pg';
import { eventRegistry, FORGETTING_EVENTS, personalFieldsOf } from '../../schema/shared/events.js';
import { createEventStore } from '../eventstore/index.js';
import { PersonalDataStore } from './personal-data.js';
import { SubjectKeys } from './subject-keys.js';

export async function openEventStore(opts: {
  pool: pg.Pool;
  encryptionKey: string;
  eventstoreUrl?: string;
}): Promise<{ store: PersonalDataStore; subjectKeys: SubjectKeys }> {
  // Without the modules' events nothing would be sealed: refuse rather than write personal data plain.
  if (Object.keys(eventRegistry).length === 0)
    throw new Error(
      'No event types are registered: import services/modules/index.ts before opening the store',
    );
  const subjectKeys = new SubjectKeys(opts.pool, opts.encryptionKey);
  const inner = await createEventStore({ pool: opts.pool, eventstoreUrl: opts.eventstoreUrl });
  return {
    store: new PersonalDataStore(inner, subjectKeys, personalFieldsOf, FORGETTING_EVENTS),
    subjectKeys,
  };
}
