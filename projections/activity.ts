// Recent activity of the whole system in plain words ('System Administrator created user Ann Lee').
// Keeps its own small table of people's display names so that a rebuild needs nothing but the log.
import { sql } from 'kysely';
import { decodeEvent } from '../schema/events/index.js';
import type { UserEvent } from '../schema/events/user.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import type { Projection } from './projection.js';

export interface ActivityTable {
  id: string;
  position: string;
  type: string;
  description: string;
  actor_id: number | null;
  subject_type: string;
  subject_id: string;
  occurred_at: Date;
}

export interface ActivityPeopleTable {
  user_id: number;
  first_name: string | null;
  last_name: string | null;
  email: string;
}

const displayName = (first: string | null | undefined, last: string | null | undefined, email: string) =>
  [first, last].filter(Boolean).join(' ').trim() || email;

type Describe = (e: UserEvent, names: { actor: string | null; subject: string }) => string | null;

const describeUser: Describe = (e, { actor, subject }) => {
  const who = actor ?? 'The system';
  switch (e.type) {
    case 'UserRegistered':
      return actor ? `${actor} created user ${subject}` : `User ${subject} was created`;
    case 'UserProfileUpdated':
      return actor === subject ? `${subject} updated their profile` : `${who} updated user ${subject}`;
    case 'UserRoleChanged':
      return `${who} changed the role of ${subject} from ${e.data.from} to ${e.data.to}`;
    case 'UserDeactivated':
      return `${who} deactivated user ${subject}`;
    case 'UserReactivated':
      return `${who} activated user ${subject}`;
    case 'UserDeleted':
      return `${who} deleted user ${subject}`;
    case 'UserPasswordChanged':
      return e.data.by === 'self'
        ? `${subject} changed their password`
        : `${who} set a new password for ${subject}`;
    case 'UserSignedIn':
      return `${subject} signed in`;
    case 'UserSignedOut':
      return `${subject} signed out`;
    default:
      return null;
  }
};

export const activityProjection: Projection = {
  name: 'activity',
  version: 1,
  tables: ['activity', 'activity_people'],
  handles: [
    'UserRegistered',
    'UserProfileUpdated',
    'UserRoleChanged',
    'UserDeactivated',
    'UserReactivated',
    'UserDeleted',
    'UserPasswordChanged',
    'UserSignedIn',
    'UserSignedOut',
  ],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'activity')} (
      id uuid PRIMARY KEY,
      position text NOT NULL,
      type text NOT NULL,
      description text NOT NULL,
      actor_id integer,
      subject_type text NOT NULL,
      subject_id text NOT NULL,
      occurred_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`activity_position_${schema}`)} ON ${sql.id(schema, 'activity')} (position DESC)`.execute(
      db,
    );
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'activity_people')} (
      user_id integer PRIMARY KEY,
      first_name text,
      last_name text,
      email text NOT NULL
    )`.execute(db);
  },
  async apply(trx, stored: StoredEvent, ctx) {
    const event = decodeEvent(stored) as UserEvent;
    const db = trx.withSchema(ctx.schema);
    if (!('userId' in event.data)) return;
    const userId = event.data.userId;
    if (event.type === 'UserRegistered') {
      const d = event.data;
      await db
        .insertInto('activity_people')
        .values({ user_id: userId, first_name: d.firstName, last_name: d.lastName, email: d.email })
        .onConflict((oc) => oc.column('user_id').doNothing())
        .execute();
    }
    const actorId = stored.metadata.userId ? Number(stored.metadata.userId) : null;
    const ids = actorId !== null && actorId !== userId ? [userId, actorId] : [userId];
    const people = await db.selectFrom('activity_people').selectAll().where('user_id', 'in', ids).execute();
    const nameOf = (id: number) => {
      const p = people.find((x) => x.user_id === id);
      return p ? displayName(p.first_name, p.last_name, p.email) : `user #${id}`;
    };
    const subject = nameOf(userId);
    const actor = actorId === null ? null : nameOf(actorId);
    const description = describeUser(event, { actor, subject });
    if (event.type === 'UserProfileUpdated') {
      // The new name applies from this event on; older lines keep the name they were written with.
      const d = event.data;
      await db
        .updateTable('activity_people')
        .set({
          ...(d.firstName !== undefined ? { first_name: d.firstName } : {}),
          ...(d.lastName !== undefined ? { last_name: d.lastName } : {}),
          ...(d.email !== undefined ? { email: d.email } : {}),
        })
        .where('user_id', '=', userId)
        .execute();
    }
    if (!description) return;
    await db
      .insertInto('activity')
      .values({
        id: stored.id,
        position: stored.position,
        type: stored.type,
        description,
        actor_id: actorId,
        subject_type: 'user',
        subject_id: String(userId),
        occurred_at: stored.createdAt,
      })
      .execute();
    ctx.notify({ topic: 'activity', id: stored.id });
  },
  /** Same result as `apply` one by one: names are followed in memory through the batch. */
  async applyBatch(trx, events, ctx) {
    const db = trx.withSchema(ctx.schema);
    const decoded = events.map((stored) => ({ stored, event: decodeEvent(stored) as UserEvent }));
    const ids = new Set<number>();
    for (const { stored, event } of decoded) {
      if (!('userId' in event.data)) continue;
      ids.add(event.data.userId);
      if (stored.metadata.userId) ids.add(Number(stored.metadata.userId));
    }
    type Person = { user_id: number; first_name: string | null; last_name: string | null; email: string };
    // Names remembered from earlier batches (copied: this batch changes them in place), the rest read.
    const memory = ctx.memory;
    const people = new Map<number, Person>();
    const unknown: number[] = [];
    for (const id of ids) {
      const known = memory?.rows.get(id) as Person | undefined;
      if (known) people.set(id, { ...known });
      else if (!memory?.complete) unknown.push(id);
    }
    if (unknown.length > 0)
      for (const p of await db
        .selectFrom('activity_people')
        .selectAll()
        .where('user_id', 'in', unknown)
        .execute())
        people.set(p.user_id as number, p as Person);
    const dirty = new Set<number>();
    const rows: Array<Record<string, unknown>> = [];
    const nameOf = (id: number) => {
      const p = people.get(id);
      return p ? displayName(p.first_name, p.last_name, p.email) : `user #${id}`;
    };
    for (const { stored, event } of decoded) {
      if (!('userId' in event.data)) continue;
      const userId = event.data.userId;
      if (event.type === 'UserRegistered' && !people.has(userId)) {
        const d = event.data;
        people.set(userId, {
          user_id: userId,
          first_name: d.firstName,
          last_name: d.lastName,
          email: d.email,
        });
        dirty.add(userId);
      }
      const actorId = stored.metadata.userId ? Number(stored.metadata.userId) : null;
      const description = describeUser(event, {
        actor: actorId === null ? null : nameOf(actorId),
        subject: nameOf(userId),
      });
      if (event.type === 'UserProfileUpdated') {
        const d = event.data;
        const p = people.get(userId);
        if (p) {
          if (d.firstName !== undefined) p.first_name = d.firstName;
          if (d.lastName !== undefined) p.last_name = d.lastName;
          if (d.email !== undefined) p.email = d.email;
          dirty.add(userId);
        }
      }
      if (!description) continue;
      rows.push({
        id: stored.id,
        position: stored.position,
        type: stored.type,
        description,
        actor_id: actorId,
        subject_type: 'user',
        subject_id: String(userId),
        occurred_at: stored.createdAt,
      });
      ctx.notify({ topic: 'activity', id: stored.id });
    }
    const changed = [...dirty].map((id) => people.get(id) as Person);
    // Two writes (live, the runner sends them as one statement with the checkpoint move), chunked
    // for a rebuild's big batches.
    for (let i = 0; i < changed.length; i += 1000)
      await db
        .insertInto('activity_people')
        .values(changed.slice(i, i + 1000))
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet((eb) => ({
            first_name: eb.ref('excluded.first_name'),
            last_name: eb.ref('excluded.last_name'),
            email: eb.ref('excluded.email'),
          })),
        )
        .execute();
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('activity')
        .values(rows.slice(i, i + 1000))
        .execute();
    if (memory) for (const p of people.values()) memory.rows.set(p.user_id, p);
  },
};
