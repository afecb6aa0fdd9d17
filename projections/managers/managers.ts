// The managers read model: one row per manager with its linked user's id. The
// list and detail join the users table for the linked user's name and role, so a user's change
// shows without this projection handling user events.
import { sql } from 'kysely';
import { managerEvents } from '../../schema/managers/events.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection } from '../projection.js';
import type { ManagersTables } from './tables.js';

const decodeManagerEvent = eventDecoder(managerEvents);

export type { ManagersTable, ManagersTables } from './tables.js';

export const managersProjection: Projection<ManagersTables> = {
  name: 'managers',
  version: 1,
  tables: ['managers'],
  handles: ['ManagerCreated', 'ManagerUpdated', 'ManagerDeleted', 'ManagerUserLinked', 'ManagerUserUnlinked'],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'managers')} (
      id integer PRIMARY KEY,
      first_name text NOT NULL,
      last_name text NOT NULL,
      email text NOT NULL,
      phone text,
      title text,
      status text NOT NULL,
      user_id integer,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('managers_created_idx')} ON ${sql.id(schema, 'managers')} (created_at DESC, id DESC)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('managers_user_idx')} ON ${sql.id(schema, 'managers')} (user_id)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    const event = decodeManagerEvent(stored);
    const managers = trx.withSchema(ctx.schema);
    const at = new Date(stored.createdAt);
    const id = event.data.managerId;
    switch (event.type) {
      case 'ManagerCreated': {
        const d = event.data;
        await managers
          .insertInto('managers')
          .values({
            id,
            first_name: d.firstName,
            last_name: d.lastName,
            email: d.email,
            phone: d.phone,
            title: d.title,
            status: d.status,
            user_id: null,
            created_at: new Date(d.createdAt),
            updated_at: new Date(d.createdAt),
            deleted_at: null,
          })
          // A rebuild replays into empty tables; live, a replayed batch finds its own row.
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        break;
      }
      case 'ManagerUpdated': {
        const d = event.data;
        await managers
          .updateTable('managers')
          .set({
            ...(d.firstName !== undefined ? { first_name: d.firstName } : {}),
            ...(d.lastName !== undefined ? { last_name: d.lastName } : {}),
            ...(d.email !== undefined ? { email: d.email } : {}),
            ...(d.phone !== undefined ? { phone: d.phone } : {}),
            ...(d.title !== undefined ? { title: d.title } : {}),
            updated_at: new Date(d.updatedAt),
          })
          .where('id', '=', id)
          .execute();
        break;
      }
      case 'ManagerDeleted':
        await managers
          .updateTable('managers')
          .set({ deleted_at: new Date(event.data.at), updated_at: new Date(event.data.at) })
          .where('id', '=', id)
          .execute();
        break;
      case 'ManagerUserLinked':
        await managers
          .updateTable('managers')
          .set({ user_id: event.data.userId, updated_at: at })
          .where('id', '=', id)
          .execute();
        break;
      case 'ManagerUserUnlinked':
        await managers
          .updateTable('managers')
          .set({ user_id: null, updated_at: at })
          .where('id', '=', id)
          .where('user_id', '=', event.data.userId)
          .execute();
        break;
    }
    ctx.notify({ topic: 'manager', id: String(id), data: { type: event.type } });
  },
};
