// Recent activity of the whole system in plain words ('System Administrator created user Ann Lee',
// 'Ann Lee approved an approval for Acme Ltd'). Keeps its own small tables of people's display names
// and companies' names so that a rebuild needs nothing but the log.
import { sql, type Transaction } from 'kysely';
import { type ApprovalEvent, approvalEvents } from '../../schema/approvals/events.js';
import { type CompanyEvent, companyEvents } from '../../schema/companies/events.js';
import { type UserEvent, userEvents } from '../../schema/users/events.js';
import { type BankingControlEvent, bankingControlEvents } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import { rowsInsert } from '../rows-insert.js';
import { APPROVAL_LINE_EVENTS, COMPANY_LINE_EVENTS, companyLineOf } from './activity-lines.js';
import type { ActivityCompaniesTable, ActivityPeopleTable, ActivityTable, ActivityTables } from './tables.js';

export type { ActivityCompaniesTable, ActivityPeopleTable, ActivityTable, ActivityTables } from './tables.js';

const decodeUserEvent = eventDecoder(userEvents);
/** A company's or an approval's event: the lines staff read (activity-lines.ts). */
const decodeLineEvent = eventDecoder({ ...companyEvents, ...approvalEvents, ...bankingControlEvents });

const displayName = (p: Omit<ActivityPeopleTable, 'user_id'> | undefined, id: number) =>
  [p?.first_name, p?.last_name].filter(Boolean).join(' ').trim() || p?.email || `user #${id}`;

/** What a forgotten person's name shows as. */
const erasedName = (id: number | string | null) => `#${id} (erased)`;

/** The line of a template, in one pass (a name that itself reads `{subject}` stays as it is). */
export function renderActivity(
  row: Pick<ActivityTable, 'template' | 'actor_name' | 'subject_name' | 'actor_id' | 'subject_id'>,
) {
  return row.template.replace(/\{(actor|subject)\}/g, (_, which: string) =>
    which === 'actor'
      ? (row.actor_name ?? erasedName(row.actor_id))
      : (row.subject_name ?? erasedName(row.subject_id)),
  );
}

/** The template of an event's line: `{actor}` and `{subject}` stand for the names. */
function templateOf(e: UserEvent, actorId: number | null, subjectId: number): string | null {
  const who = actorId === null ? 'The system' : '{actor}';
  switch (e.type) {
    case 'UserRegistered':
      return actorId !== null ? '{actor} created user {subject}' : 'User {subject} was created';
    case 'UserProfileUpdated':
      return actorId === subjectId ? '{subject} updated their profile' : `${who} updated user {subject}`;
    case 'UserRoleChanged':
      return `${who} changed the role of {subject} from ${e.data.from} to ${e.data.to}`;
    case 'UserDeactivated':
      return `${who} deactivated user {subject}`;
    case 'UserReactivated':
      return `${who} activated user {subject}`;
    case 'UserDeleted':
      return `${who} deleted user {subject}`;
    case 'UserPasswordChanged':
      return e.data.by === 'self'
        ? '{subject} changed their password'
        : `${who} set a new password for {subject}`;
    case 'UserSignedIn':
      return '{subject} signed in';
    case 'UserSignedOut':
      return '{subject} signed out';
    default:
      return null;
  }
}

const USER_LINE_EVENTS = [
  'UserRegistered',
  'UserProfileUpdated',
  'UserRoleChanged',
  'UserDeactivated',
  'UserReactivated',
  'UserDeleted',
  'UserPasswordChanged',
  'UserSignedIn',
  'UserSignedOut',
  'UserForgotten',
] as const;

export const activityProjection: Projection<ActivityTables> = {
  name: 'activity',
  // 2: each line keeps its template and names, so erasing a person re-renders their lines.
  // 3: companies' and approvals' events make lines too, each with its company and kind.
  // 4: the company's control on bank detail changes makes a line.
  version: 4,
  tables: ['activity', 'activity_people', 'activity_companies'],
  handles: [...USER_LINE_EVENTS, ...COMPANY_LINE_EVENTS, ...APPROVAL_LINE_EVENTS],
  // A company's or an approval's line needs none of its sealed fields (contacts, recipients, e-mail).
  readsPersonal: (e) => e.type.startsWith('User'),
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'activity')} (
      id uuid PRIMARY KEY,
      position text NOT NULL,
      type text NOT NULL,
      description text NOT NULL,
      template text NOT NULL,
      actor_name text,
      subject_name text,
      actor_id integer,
      subject_type text NOT NULL,
      subject_id text NOT NULL,
      company_id integer,
      kind text NOT NULL,
      occurred_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('activity_position_idx')} ON ${sql.id(schema, 'activity')} (position DESC)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('activity_subject_idx')} ON ${sql.id(schema, 'activity')} (subject_id)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('activity_actor_idx')} ON ${sql.id(schema, 'activity')} (actor_id)`.execute(
      db,
    );
    // A table of version 2 (a start before this version's rebuild swapped in the new one): its lines
    // are all people's, so the new columns' defaults describe them, and the index below can be made.
    const columns = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = ${schema} AND table_name = 'activity' AND column_name = 'kind'`.execute(db);
    if (columns.rows[0]?.n === 0)
      await sql`ALTER TABLE ${sql.id(schema, 'activity')} ADD COLUMN IF NOT EXISTS company_id integer,
        ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'user'`.execute(db);
    // A company's feed, newest first.
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('activity_company_idx')} ON ${sql.id(schema, 'activity')} (company_id, position DESC)`.execute(
      db,
    );
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'activity_people')} (
      user_id integer PRIMARY KEY,
      first_name text,
      last_name text,
      email text
    )`.execute(db);
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'activity_companies')} (
      company_id integer PRIMARY KEY,
      name text NOT NULL
    )`.execute(db);
  },
  apply: (trx, stored, ctx) => applyActivity(trx, [stored], ctx),
  applyBatch: (trx, events, ctx) => applyActivity(trx, events, ctx),
};

/** People's names as of the batch's end, in one statement (rows-insert.ts). */
const upsertPeople = rowsInsert<ActivityPeopleTable>({
  table: 'activity_people',
  columns: [
    ['user_id', 'integer'],
    ['first_name', 'text'],
    ['last_name', 'text'],
    ['email', 'text'],
  ],
  upsertOn: 'user_id',
});

/** Companies' names as of the batch's end. */
const upsertCompanies = rowsInsert<ActivityCompaniesTable>({
  table: 'activity_companies',
  columns: [
    ['company_id', 'integer'],
    ['name', 'text'],
  ],
  upsertOn: 'company_id',
});

/** The batch's lines. */
const insertLines = rowsInsert<ActivityTable>({
  table: 'activity',
  columns: [
    ['id', 'uuid'],
    ['position', 'text'],
    ['type', 'text'],
    ['description', 'text'],
    ['template', 'text'],
    ['actor_name', 'text'],
    ['subject_name', 'text'],
    ['actor_id', 'integer'],
    ['subject_type', 'text'],
    ['subject_id', 'text'],
    ['company_id', 'integer'],
    ['kind', 'text'],
    ['occurred_at', 'timestamptz'],
  ],
});

type Decoded =
  | { stored: StoredEvent; event: UserEvent; user: true }
  | { stored: StoredEvent; event: CompanyEvent | ApprovalEvent | BankingControlEvent; user: false };

/** The memory's key of a company's name (people are kept under their numeric id). */
const companyKey = (id: number) => `company:${id}`;

/** One event or a batch alike: names are followed in memory through the batch. */
async function applyActivity(
  trx: Transaction<ActivityTables>,
  events: StoredEvent[],
  ctx: ProjectionContext,
) {
  const db = trx.withSchema(ctx.schema);
  const decoded: Decoded[] = events
    .filter((stored) => activityProjection.handles.includes(stored.type))
    .map((stored) =>
      stored.type.startsWith('User')
        ? { stored, event: decodeUserEvent(stored), user: true as const }
        : {
            stored,
            event: decodeLineEvent(stored, { sealed: 'absent' }),
            user: false as const,
          },
    );
  const commandUser = (stored: StoredEvent) =>
    stored.metadata.userId ? Number(stored.metadata.userId) : null;
  const ids = new Set<number>();
  const companyIds = new Set<number>();
  for (const { stored, event, user } of decoded) {
    const actorId = commandUser(stored);
    if (actorId !== null) ids.add(actorId);
    if (user) {
      if ('userId' in event.data) ids.add(event.data.userId);
      continue;
    }
    companyIds.add(event.data.companyId);
    const line = companyLineOf(event, actorId);
    if (line?.actorId != null) ids.add(line.actorId);
  }
  type Person = ActivityPeopleTable;
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
  const companies = new Map<number, string>();
  const unknownCompanies: number[] = [];
  for (const id of companyIds) {
    const known = memory?.rows.get(companyKey(id)) as string | undefined;
    if (known !== undefined) companies.set(id, known);
    else if (!memory?.complete) unknownCompanies.push(id);
  }
  if (unknownCompanies.length > 0)
    for (const c of await db
      .selectFrom('activity_companies')
      .selectAll()
      .where('company_id', 'in', unknownCompanies)
      .execute())
      companies.set(c.company_id, c.name);
  const dirty = new Set<number>();
  const dirtyCompanies = new Set<number>();
  const forgotten = new Set<number>();
  const rows: ActivityTable[] = [];
  const nameOf = (id: number) => displayName(people.get(id), id);
  for (const decodedEvent of decoded) {
    const { stored } = decodedEvent;
    if (!decodedEvent.user) {
      const event = decodedEvent.event;
      const companyId = event.data.companyId;
      if (
        event.type === 'CompanyCreated' ||
        (event.type === 'CompanyUpdated' && event.data.name !== undefined)
      ) {
        companies.set(companyId, event.data.name as string);
        dirtyCompanies.add(companyId);
      }
      const line = companyLineOf(event, commandUser(stored));
      if (!line) continue;
      const row: ActivityTable = {
        id: stored.id,
        position: stored.position,
        type: stored.type,
        description: '',
        template: line.template,
        actor_name: line.actorId === null ? null : nameOf(line.actorId),
        subject_name: companies.get(companyId) ?? `company #${companyId}`,
        actor_id: line.actorId,
        subject_type: 'company',
        subject_id: String(companyId),
        company_id: companyId,
        kind: line.kind,
        occurred_at: stored.createdAt,
      };
      row.description = renderActivity(row);
      rows.push(row);
      ctx.notify({ topic: 'activity', id: stored.id, data: { companyId, kind: line.kind } });
      continue;
    }
    const event = decodedEvent.event;
    if (!('userId' in event.data)) continue;
    const userId = event.data.userId;
    if (event.type === 'UserForgotten') {
      // Their names leave the people table and every line that shows them (below, after the batch).
      people.delete(userId);
      forgotten.add(userId);
      dirty.delete(userId);
      for (const r of rows) {
        if (r.subject_type === 'user' && r.subject_id === String(userId)) r.subject_name = null;
        if (r.actor_id === userId) r.actor_name = null;
        r.description = renderActivity(r);
      }
      continue;
    }
    if (event.type === 'UserRegistered' && !people.has(userId)) {
      const d = event.data;
      people.set(userId, { user_id: userId, first_name: d.firstName, last_name: d.lastName, email: d.email });
      dirty.add(userId);
    }
    const actorId = commandUser(stored);
    const template = templateOf(event, actorId, userId);
    // Names as they stand before this event (a profile update is described with the old name).
    const actorName = actorId === null ? null : nameOf(actorId);
    const subjectName = nameOf(userId);
    if (event.type === 'UserProfileUpdated') {
      // The new name applies from this event on; older lines keep the name they were written with.
      const d = event.data;
      const p = people.get(userId);
      if (p) {
        if (d.firstName !== undefined) p.first_name = d.firstName;
        if (d.lastName !== undefined) p.last_name = d.lastName;
        if (d.email !== undefined) p.email = d.email;
        dirty.add(userId);
      }
    }
    if (!template) continue;
    const row: ActivityTable = {
      id: stored.id,
      position: stored.position,
      type: stored.type,
      description: '',
      template,
      actor_name: actorName,
      subject_name: subjectName,
      actor_id: actorId,
      subject_type: 'user',
      subject_id: String(userId),
      company_id: null,
      kind: 'user',
      occurred_at: stored.createdAt,
    };
    row.description = renderActivity(row);
    rows.push(row);
    ctx.notify({ topic: 'activity', id: stored.id, data: { kind: 'user' } });
  }
  const changed = [...dirty].map((id) => people.get(id) as Person);
  const renamed = [...dirtyCompanies].map((id) => ({ company_id: id, name: companies.get(id) as string }));
  // Writes (live, the runner sends them as one statement with the checkpoint move). One array per
  // column, so a rebuild's big batch is one statement too.
  if (changed.length > 0) await trx.executeQuery(upsertPeople(ctx.schema, changed));
  if (renamed.length > 0) await trx.executeQuery(upsertCompanies(ctx.schema, renamed));
  if (rows.length > 0) await trx.executeQuery(insertLines(ctx.schema, rows));
  if (forgotten.size > 0) await eraseLines(trx, ctx.schema, [...forgotten]);
  if (memory) {
    for (const p of people.values()) memory.rows.set(p.user_id, p);
    for (const id of forgotten) memory.rows.delete(id);
    for (const [id, name] of companies) memory.rows.set(companyKey(id), name);
  }
}

/** Takes forgotten people's names out of the people table and out of every line already written. */
async function eraseLines(trx: Transaction<ActivityTables>, schema: string, userIds: number[]) {
  const db = trx.withSchema(schema);
  await db.deleteFrom('activity_people').where('user_id', 'in', userIds).execute();
  const lines = (await db
    .selectFrom('activity')
    .select(['id', 'template', 'actor_name', 'subject_name', 'actor_id', 'subject_type', 'subject_id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('subject_type', '=', 'user'), eb('subject_id', 'in', userIds.map(String))]),
        eb('actor_id', 'in', userIds),
      ]),
    )
    .execute()) as Array<
    Pick<
      ActivityTable,
      'id' | 'template' | 'actor_name' | 'subject_name' | 'actor_id' | 'subject_type' | 'subject_id'
    >
  >;
  if (lines.length === 0) return;
  for (const l of lines) {
    if (l.subject_type === 'user' && userIds.includes(Number(l.subject_id))) l.subject_name = null;
    if (l.actor_id !== null && userIds.includes(l.actor_id)) l.actor_name = null;
  }
  await sql`UPDATE ${sql.id(schema, 'activity')} AS a
    SET actor_name = u.actor_name, subject_name = u.subject_name, description = u.description
    FROM unnest(${lines.map((l) => l.id)}::uuid[], ${lines.map((l) => l.actor_name)}::text[],
                ${lines.map((l) => l.subject_name)}::text[], ${lines.map((l) => renderActivity(l))}::text[])
      AS u(id, actor_name, subject_name, description)
    WHERE a.id = u.id`.execute(trx);
}
