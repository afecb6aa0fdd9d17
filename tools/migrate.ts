// `npm run migrate`: upgrades a Postgres event log written before personal data was sealed
// (docs/decisions/0006-personal-data-sealed-per-subject.md). A copy-and-transform, the one accepted
// way to rewrite history (docs/decisions/0005-hash-chain-and-anchors.md):
//
// 1. Copy every event, in log order, into a staging table, transformed: password hashes move to
//    `user_credentials` (the event names the credential), e-mail, names and IPs are sealed with the
//    user's data key, e-mail claim streams are renamed to the address's blind index, and e-mail
//    addresses in metadata (the bootstrap admin's command id) are replaced by their blind index; every
//    event gets its digest, and the insert chains it (tamper evidence, services/eventstore/chain.ts).
// 2. Build the users and activity read models from the staged log in a scratch schema and compare
//    them with the read models the product has now: every row must match (and every user's new
//    credential must hold the hash the old row had). Any difference stops the migration here, with
//    nothing changed.
// 3. In one transaction, replace the log's rows with the staged ones (same order, same event ids,
//    new positions) and move every checkpoint and parked event to the new position of the same
//    event. Then VACUUM FULL, so that the old rows' bytes leave the table files too.
// 4. The old log's anchors went with its rows: their published file ($AUDIT_ANCHOR_DIR/<db>.jsonl)
//    is renamed beside itself (`.before-migrate-<time>`), never deleted, so that `audit verify`
//    checks the new log against a new file and the old one stays for whoever holds copies of it.
//
// The product must be stopped while it runs. Backups taken before still hold the old rows: see
// docs/OPERATIONS.md. KurrentDB logs are not covered (their events cannot be rewritten in place).
import { existsSync, renameSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../projections/database.js';
import type { AnyProjection, ProjectionContext } from '../projections/projection.js';
import { personalFieldsOf, schemaVersionOf } from '../schema/shared/events.js';
import { Credentials } from '../services/auth/credentials.js';
import { anchorDir, anchorFile } from '../services/eventstore/anchor-publish.js';
import { eventDigest } from '../services/eventstore/chain.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import { LOG_ORDER_SQL, logOrderSql, POSITION_SQL, positionParams } from '../services/eventstore/postgres.js';
import { projections } from '../services/modules/index.js';
import { legacyEventsPresent } from '../services/privacy/legacy.js';
import { BlindIndex, isSealed, openData, sealData } from '../services/privacy/personal-data.js';
import { SubjectKeys } from '../services/privacy/subject-keys.js';
import { createPool, otherConnections } from '../services/shared/db.js';
import { runCli } from './cli.js';

const STAGE = 'migrate_staged_events';
const SCRATCH = 'migrate_compare';
const BATCH = 1000;
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;

export interface MigrateResult {
  migrated: boolean;
  events: number;
  credentials: number;
  sealed: number;
  renamedStreams: number;
  compared: { users: number; activity: number } | null;
  /** Where the old log's published anchors file went (null: there was none). */
  archivedAnchors: string | null;
}

interface OldRow {
  event_id: string;
  stream_id: string;
  stream_version: string;
  event_type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: Date;
  position: string;
}

export class MigrationRefused extends Error {}

export async function migrateLog(opts: {
  pool: pg.Pool;
  encryptionKey: string;
  log?: (line: string) => void;
  /** The published anchors' directory (default: AUDIT_ANCHOR_DIR's, anchor-publish.ts). */
  anchorDir?: string;
}): Promise<MigrateResult> {
  const { pool } = opts;
  const say = opts.log ?? (() => {});
  const none: MigrateResult = {
    migrated: false,
    events: 0,
    credentials: 0,
    sealed: 0,
    renamedStreams: 0,
    compared: null,
    archivedAnchors: null,
  };
  if (!(await tableExists(pool, 'es_events')) || !(await legacyEventsPresent(pool))) return none;
  // The pool's own idle connections count too: it is used with max 1 here (see main()).
  const others = await otherConnections(pool);
  if (others > 0)
    throw new MigrationRefused(
      `Stop Billflow first: ${others} other connection(s) to this database are open.`,
    );

  await SubjectKeys.setup(pool);
  await Credentials.setup(pool);
  const keys = new SubjectKeys(pool, opts.encryptionKey);
  const blind = new BlindIndex(await keys.blindIndexKey());
  const credentials = new Credentials(pool);
  const result: MigrateResult = { ...none, migrated: true };

  // 1. Transform into the staging table, in log order.
  await pool.query(`DROP TABLE IF EXISTS ${STAGE}`);
  await pool.query(`CREATE TABLE ${STAGE} (
    seq bigint PRIMARY KEY, event_id uuid NOT NULL, stream_id text NOT NULL, stream_version bigint NOT NULL,
    event_type text NOT NULL, schema_version int NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL, old_position text NOT NULL, digest bytea NOT NULL)`);
  const renamed = new Set<string>();
  let after = '';
  let seq = 0;
  for (;;) {
    const r = await pool.query<OldRow>(
      `SELECT event_id, stream_id, stream_version::text, event_type, schema_version, data, metadata, created_at,
              ${POSITION_SQL} AS position
         FROM es_events WHERE ${logOrderSql('>', 1)} ORDER BY ${LOG_ORDER_SQL} LIMIT ${BATCH}`,
      positionParams(after),
    );
    if (r.rows.length === 0) break;
    const staged: unknown[][] = [];
    for (const row of r.rows) {
      const t = await transform(row, { keys, blind, credentials });
      if (t.credential) result.credentials++;
      if (t.sealed) result.sealed++;
      if (t.streamId !== row.stream_id) renamed.add(row.stream_id);
      staged.push([
        ++seq,
        row.event_id,
        t.streamId,
        row.stream_version,
        row.event_type,
        t.schemaVersion,
        JSON.stringify(t.data),
        JSON.stringify(t.metadata),
        row.created_at,
        row.position,
        eventDigest({
          id: row.event_id,
          streamId: t.streamId,
          type: row.event_type,
          schemaVersion: t.schemaVersion,
          data: t.data,
          metadata: t.metadata,
        }),
      ]);
    }
    await pool.query(
      `INSERT INTO ${STAGE} SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[],
         $6::int[], $7::jsonb[], $8::jsonb[], $9::timestamptz[], $10::text[], $11::bytea[])`,
      staged[0].map((_, col) => staged.map((s) => s[col])),
    );
    after = r.rows[r.rows.length - 1].position;
  }
  result.events = seq;
  result.renamedStreams = renamed.size;
  say(
    `staged ${seq} events: ${result.credentials} password hashes moved out, ${result.sealed} sealed, ${renamed.size} claim streams renamed`,
  );

  // 2. The read models the staged log gives must be the ones the product shows now.
  try {
    result.compared = await compareReadModels(pool, keys);
  } catch (err) {
    await pool.query(`DROP TABLE IF EXISTS ${STAGE}`);
    throw err;
  }
  say(`read models match: ${result.compared.users} users, ${result.compared.activity} activity lines`);

  // 3. Swap the rows in, in one transaction, and move the checkpoints to the same events.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE es_events IN ACCESS EXCLUSIVE MODE');
    await client.query(`CREATE TEMP TABLE old_positions ON COMMIT DROP AS
      SELECT event_id, ${POSITION_SQL} AS position FROM es_events`);
    await client.query('DELETE FROM es_events');
    // One transaction: every row gets its id, and the sequence keeps the staged order.
    // The insert chains each event to the one before it in its stream (es_chain, chain.ts).
    await client.query(`INSERT INTO es_events (stream_id, stream_version, event_id, event_type, schema_version,
        data, metadata, created_at, digest)
      SELECT stream_id, stream_version, event_id, event_type, schema_version, data, metadata, created_at, digest
        FROM ${STAGE} ORDER BY seq`);
    // Anchors of the old log name positions that are gone: the next anchor job starts again.
    await client.query('DELETE FROM es_anchors');
    await client.query(`CREATE TEMP TABLE new_positions ON COMMIT DROP AS
      SELECT es_events.event_id, ${POSITION_SQL} AS position, o.position AS old_position, es_events.stream_id
        FROM es_events JOIN old_positions o USING (event_id)`);
    // A checkpoint at an old position goes to the new position of the last event at or before it.
    if (await tableExists(client, 'projection_checkpoints'))
      await client.query(`UPDATE projection_checkpoints c SET position = COALESCE((
          SELECT n.position FROM new_positions n WHERE n.old_position <= c.position
           ORDER BY n.old_position DESC LIMIT 1), '')
        WHERE c.position <> ''`);
    if (await tableExists(client, 'parked_events'))
      await client.query(`UPDATE parked_events p SET position = n.position, stream_id = n.stream_id
          FROM new_positions n WHERE n.event_id = p.event_id`);
    await client.query(`DROP TABLE ${STAGE}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  // Right after the swap: the file now names anchors the database no longer holds.
  result.archivedAnchors = archivePublished(await anchorFile(pool, opts.anchorDir ?? anchorDir()));
  if (result.archivedAnchors) say(`published anchors of the old log archived to ${result.archivedAnchors}`);
  // The deleted rows' bytes stay in the table files until rewritten.
  await pool.query('VACUUM FULL es_events');
  if (await tableExists(pool, 'parked_events')) await pool.query('VACUUM FULL parked_events');
  say('swapped in; old rows vacuumed away');
  return result;
}

/** Renames the file beside itself, never over another; answers where it went (null: no file). */
function archivePublished(file: string): string | null {
  if (!existsSync(file)) return null;
  const stamp = new Date().toISOString().replace(/:/g, '-');
  let to = `${file}.before-migrate-${stamp}`;
  for (let n = 2; existsSync(to); n++) to = `${file}.before-migrate-${stamp}-${n}`;
  renameSync(file, to);
  return to;
}

async function tableExists(db: pg.Pool | pg.PoolClient, name: string) {
  const r = await db.query('SELECT to_regclass($1) IS NOT NULL AS found', [`public.${name}`]);
  return r.rows[0].found as boolean;
}

/** One event in its new form. */
async function transform(
  row: OldRow,
  deps: { keys: SubjectKeys; blind: BlindIndex; credentials: Credentials },
) {
  let data = { ...row.data };
  let schemaVersion = row.schema_version;
  let credential = false;
  let sealed = false;
  if (
    (row.event_type === 'UserRegistered' || row.event_type === 'UserPasswordChanged') &&
    schemaVersion === 1
  ) {
    const { passwordHash, ...rest } = data as { passwordHash: string; userId: number };
    // The credential's id comes from the event's, so a re-run after a failure finds the same row.
    const id = await deps.credentials.store(rest.userId, passwordHash, `migrated-${row.event_id}`);
    data = { ...rest, credentialId: id };
    schemaVersion = schemaVersionOf(row.event_type);
    credential = true;
  }
  const spec = personalFieldsOf(row.event_type);
  if (spec && !isSealed(data.pii) && spec.fields.some((f) => data[f] !== undefined && data[f] !== null)) {
    const subject = spec.subject(data);
    data = sealData(row.event_id, data, spec, subject, await deps.keys.getOrCreate(subject));
    sealed = true;
  }
  let streamId = row.stream_id;
  if (streamId.startsWith('useremail-') && streamId.includes('@'))
    streamId = `useremail-${deps.blind.email(streamId.slice('useremail-'.length))}`;
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row.metadata))
    metadata[k] = typeof v === 'string' ? v.replace(EMAIL, (m) => deps.blind.email(m)) : v;
  return { data, schemaVersion, streamId, metadata, credential, sealed };
}

/** The staged events as the product would read them (sealed fields opened). */
async function* stagedEvents(pool: pg.Pool, keys: SubjectKeys): AsyncGenerator<StoredEvent[]> {
  let after = 0;
  for (;;) {
    const r = await pool.query(
      `SELECT seq::int, event_id, stream_id, stream_version::int, event_type, schema_version, data, metadata, created_at
         FROM ${STAGE} WHERE seq > $1 ORDER BY seq LIMIT ${BATCH * 2}`,
      [after],
    );
    if (r.rows.length === 0) return;
    const events: StoredEvent[] = [];
    for (const row of r.rows) {
      let data = row.data as Record<string, unknown>;
      let erased: string[] | null = null;
      if (isSealed(data.pii)) ({ data, erased } = openData(row.event_id, data, await keys.get(data.pii.k)));
      events.push({
        id: row.event_id,
        type: row.event_type,
        schemaVersion: row.schema_version,
        streamId: row.stream_id,
        streamVersion: row.stream_version,
        position: String(row.seq).padStart(20, '0'),
        data,
        metadata: row.metadata,
        createdAt: row.created_at,
        ...(erased ? { erased } : {}),
      });
    }
    yield events;
    after = r.rows[r.rows.length - 1].seq;
  }
}

/** Columns both the product's read models and the staged log's have; positions differ by design. */
const COMPARED: Record<string, { order: string; skip: string[] }> = {
  users: { order: 'id', skip: ['password_hash', 'credential_id', 'erased_at'] },
  activity: { order: 'occurred_at, id', skip: ['position', 'template', 'actor_name', 'subject_name'] },
  activity_people: { order: 'user_id', skip: [] },
};

async function compareReadModels(pool: pg.Pool, keys: SubjectKeys) {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const chosen = projections.filter((p) => p.name === 'users' || p.name === 'activity');
  await pool.query(`DROP SCHEMA IF EXISTS ${SCRATCH} CASCADE`);
  await pool.query(`CREATE SCHEMA ${SCRATCH}`);
  try {
    for (const p of chosen) await buildInto(db, p, stagedEvents(pool, keys));
    const counts = { users: 0, activity: 0 };
    for (const [table, { order, skip }] of Object.entries(COMPARED)) {
      if (!(await tableExists(pool, table))) continue;
      const cols = await pool.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1
           AND column_name IN (SELECT column_name FROM information_schema.columns
                                WHERE table_schema = $2 AND table_name = $1)
         ORDER BY column_name`,
        [table, SCRATCH],
      );
      const list = cols.rows.map((c) => `"${c.column_name}"`).filter((c) => !skip.includes(c.slice(1, -1)));
      const now = await pool.query(`SELECT ${list.join(', ')} FROM public.${table} ORDER BY ${order}`);
      const staged = await pool.query(`SELECT ${list.join(', ')} FROM ${SCRATCH}.${table} ORDER BY ${order}`);
      const a = now.rows.map((r) => JSON.stringify(r));
      const b = staged.rows.map((r) => JSON.stringify(r));
      const differs = a.length !== b.length ? a.length : a.findIndex((row, i) => row !== b[i]);
      if (differs !== -1)
        throw new MigrationRefused(
          `The migrated log would not give the same ${table} read model (${a.length} rows now, ${b.length} from the migrated log; first difference at row ${differs + 1}). Nothing was changed. Let the read models catch up (start Billflow's previous version once) and run it again.`,
        );
      if (table === 'users') counts.users = a.length;
      if (table === 'activity') counts.activity = a.length;
    }
    await verifyPasswords(pool);
    return counts;
  } finally {
    // Not db.destroy(): that would end the caller's pool.
    await pool.query(`DROP SCHEMA IF EXISTS ${SCRATCH} CASCADE`);
  }
}

/** Every user's current credential, from the migrated log, holds the hash their row holds now. */
async function verifyPasswords(pool: pg.Pool) {
  const hasHash = await pool.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'users'
       AND column_name = 'password_hash'`,
  );
  if (hasHash.rowCount === 0) return;
  const r = await pool.query(`SELECT count(*)::int AS n FROM public.users u
      JOIN ${SCRATCH}.users s ON s.id = u.id
      LEFT JOIN user_credentials c ON c.id = s.credential_id
     WHERE c.password_hash IS DISTINCT FROM u.password_hash`);
  if (r.rows[0].n > 0)
    throw new MigrationRefused(
      `${r.rows[0].n} user(s) would lose their password in the migrated log. Nothing was changed.`,
    );
}

async function buildInto(db: Kysely<Database>, p: AnyProjection, batches: AsyncIterable<StoredEvent[]>) {
  await p.setup(db, SCRATCH);
  const ctx: ProjectionContext = {
    schema: SCRATCH,
    notify: () => {},
    memory: { rows: new Map(), complete: true },
  };
  for await (const events of batches) {
    const mine = events.filter((e) => p.handles.includes(e.type));
    if (mine.length === 0) continue;
    await db.transaction().execute(async (trx) => {
      if (p.applyBatch) await p.applyBatch(trx, mine, ctx);
      else for (const e of mine) await p.apply(trx, e, ctx);
    });
  }
}

async function main() {
  const { ensureLocalServices, localSocketUrl, withDatabase } = await import('./local-services.js');
  const { localSecret } = await import('./local-secrets.js');
  if (process.env.EVENTSTORE_URL)
    throw new MigrationRefused('npm run migrate upgrades Postgres event logs only (EVENTSTORE_URL is set).');
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const services = await ensureLocalServices();
    databaseUrl = withDatabase(localSocketUrl(services.databaseUrl) ?? services.databaseUrl, 'billflow');
  }
  const encryptionKey = process.env.ENCRYPTION_KEY ?? localSecret('ENCRYPTION_KEY');
  if (!encryptionKey) throw new MigrationRefused('ENCRYPTION_KEY is required (the key Billflow runs with).');
  const pool = createPool({ connectionString: databaseUrl, max: 1 });
  try {
    const r = await migrateLog({ pool, encryptionKey, log: (line) => console.log(line) });
    console.log(
      r.migrated
        ? 'The event log is migrated.'
        : 'The event log is already in its current form: nothing to do.',
    );
  } finally {
    await pool.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runCli(main, () => true);
