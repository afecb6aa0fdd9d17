// `npm run migrate` on a log written before personal data was sealed. The old log is made the way
// the previous version left it: the product writes users, then the log is turned back into its old
// form (plain fields, password hashes in the events, claim streams named by the address, no keys,
// no credentials table, the old read-model tables) before the migration runs. The old log was
// anchored and its anchors published: the migration archives that file, and the new log verifies.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../services/auth/permissions.js';
import { anchorFile } from '../services/eventstore/anchor-publish.js';
import { writeAnchors } from '../services/eventstore/anchors.js';
import { verifyLog } from '../services/eventstore/verify.js';
import { type StartedApp, startApp } from '../services/main.js';
import { projections } from '../services/modules/index.js';
import { legacyEventsPresent } from '../services/privacy/legacy.js';
import { openData } from '../services/privacy/personal-data.js';
import { loadConfig } from '../services/shared/config.js';
import { login, registerUser } from '../services/users/auth.js';
import { adminChangePassword, deleteUser, updateUser } from '../services/users/users.js';
import { testSecrets } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { type MigrateResult, MigrationRefused, migrateLog } from './migrate.js';

let db: TestDatabase;
let redis: TestRedis;
const secrets = testSecrets();
let before: Awaited<ReturnType<typeof readModels>>;
/** The old log's published anchors, as the file held them before the migration. */
let published = '';
let migrated: MigrateResult;

function config() {
  return loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_EMAIL: 'admin@migrate.test',
    ADMIN_PASSWORD: 'Admin-Passw0rd!',
    LOG_LEVEL: 'silent',
    ...secrets,
  });
}

/** The rows a user sees, without what differs by design (positions, credential ids, templates). */
async function readModels() {
  const q = (text: string) => db.pool.query(text).then((r) => r.rows);
  return {
    users: await q(
      'SELECT id, email, first_name, last_name, role, is_active, deleted_at, created_at, updated_at, total_logins, last_login_at FROM users ORDER BY id',
    ),
    activity: await q(
      'SELECT id, type, description, actor_id, subject_id, occurred_at FROM activity ORDER BY occurred_at, id',
    ),
    people: await q('SELECT * FROM activity_people ORDER BY user_id'),
  };
}

async function caughtUp(started: StartedApp) {
  const head = await started.app.store.headPosition();
  for (const until = Date.now() + 15_000; Date.now() < until; ) {
    // At the head, and built by this version (an old version's tables are rebuilt first).
    const r = await db.pool.query('SELECT name, position, version FROM projection_checkpoints');
    const done = projections.every((p) =>
      r.rows.some((c) => c.name === p.name && c.version === p.version && c.position >= head),
    );
    if (done) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the read models did not catch up in 15 s');
}

/** Turns the log and read models back into the previous version's form. */
async function makeLegacy(encryptionKey: string, started: StartedApp) {
  const rows = await db.pool.query('SELECT event_id, stream_id, event_type, data, metadata FROM es_events');
  const keys = started.app.subjectKeys;
  for (const row of rows.rows) {
    let data = row.data;
    if (data.pii) data = openData(row.event_id, data, await keys.get(data.pii.k)).data;
    let version = 1;
    if (row.event_type === 'UserRegistered' || row.event_type === 'UserPasswordChanged') {
      const { credentialId, ...rest } = data;
      const hash = await db.pool.query('SELECT password_hash FROM user_credentials WHERE id = $1', [
        credentialId,
      ]);
      data = { ...rest, passwordHash: hash.rows[0].password_hash };
    }
    let stream = row.stream_id;
    if (row.event_type === 'UserEmailClaimed' || row.event_type === 'UserEmailReleased')
      stream = `useremail-${data.email.toLowerCase()}`;
    const metadata = { ...row.metadata };
    if (String(metadata.commandId).startsWith('bootstrap-admin-'))
      metadata.commandId =
        metadata.correlationId =
        metadata.causationId =
          'bootstrap-admin-admin@migrate.test';
    if (row.event_type !== 'UserRegistered' && row.event_type !== 'UserPasswordChanged') version = 1;
    await db.pool.query(
      'UPDATE es_events SET data = $2, schema_version = $3, stream_id = $4, metadata = $5 WHERE event_id = $1',
      [row.event_id, data, version, stream, metadata],
    );
  }
  // From before the hash chain too.
  await db.pool.query('UPDATE es_events SET digest = NULL, hash = NULL');
  // The old read models: the hash in users, no templates in activity; keys and credentials unknown.
  await db.pool.query('ALTER TABLE users ADD COLUMN password_hash text');
  await db.pool.query(
    'UPDATE users u SET password_hash = c.password_hash FROM user_credentials c WHERE c.id = u.credential_id',
  );
  await db.pool.query('ALTER TABLE users DROP COLUMN credential_id, DROP COLUMN erased_at');
  await db.pool.query(
    'ALTER TABLE activity DROP COLUMN template, DROP COLUMN actor_name, DROP COLUMN subject_name',
  );
  await db.pool.query("UPDATE projection_checkpoints SET version = 1 WHERE name IN ('users', 'activity')");
  await db.pool.query('DROP TABLE subject_keys, user_credentials');
  void encryptionKey;
}

beforeAll(async () => {
  db = await createTestDatabase('migrate', 1);
  redis = await createTestRedis('migrate');
  const started = await startApp(config());
  const app = started.app;
  const admin: Actor = { id: 1, role: 'ADMIN', email: 'admin@migrate.test' };
  const ann = await registerUser(app, admin, {
    email: 'ann.old@migrate.test',
    password: 'ann-password-1',
    firstName: 'Ann',
    lastName: 'Oldlog',
    role: 'USER',
  });
  await login(app, { email: 'ann.old@migrate.test', password: 'ann-password-1' }, { ip: '192.0.2.44' });
  await updateUser(app, admin, ann.id, { lastName: 'Renamed', email: 'ann.new@migrate.test' });
  const bob = await registerUser(app, admin, {
    email: 'bob.old@migrate.test',
    password: 'bob-password-1',
    firstName: 'Bob',
    lastName: null,
    role: 'MODERATOR',
  });
  await adminChangePassword(app, admin, bob.id, { newPassword: 'bob-password-2' });
  const gone = await registerUser(app, admin, {
    email: 'gone@migrate.test',
    password: 'gone-password',
    firstName: 'Gone',
    lastName: 'Soon',
    role: 'GUEST',
  });
  await deleteUser(app, admin, gone.id);
  await caughtUp(started);
  before = await readModels();
  // The anchor job ran on the old log: anchors in es_anchors, and the same published in the file.
  expect((await writeAnchors(db.pool, app.store)).length).toBeGreaterThan(0);
  published = readFileSync(await anchorFile(db.pool), 'utf8');
  await makeLegacy(secrets.ENCRYPTION_KEY, started);
  await started.close();
});

afterAll(async () => {
  await redis?.cleanup();
  await db?.drop();
});

describe('npm run migrate', () => {
  it('the product refuses to start on the old log', async () => {
    await expect(startApp(config())).rejects.toThrow(/npm run migrate/);
  });

  it('refuses, changing nothing, when the migrated log would not give the read models the product has', async () => {
    await db.pool.query("UPDATE users SET first_name = 'Tampered' WHERE email = 'ann.new@migrate.test'");
    await expect(migrateLog({ pool: db.pool, encryptionKey: secrets.ENCRYPTION_KEY })).rejects.toBeInstanceOf(
      MigrationRefused,
    );
    expect(await legacyEventsPresent(db.pool)).toBe(true);
    const plain = await db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%Oldlog%'",
    );
    expect(plain.rows[0].n).toBeGreaterThan(0);
    await db.pool.query("UPDATE users SET first_name = 'Ann' WHERE email = 'ann.new@migrate.test'");
  });

  it('copies the log into its new form, and the product then runs on it with the same read models and passwords', async () => {
    const lines: string[] = [];
    const result = await migrateLog({
      pool: db.pool,
      encryptionKey: secrets.ENCRYPTION_KEY,
      log: (l) => lines.push(l),
    });
    migrated = result;
    expect(result).toMatchObject({ migrated: true, credentials: 5 });
    expect(result.renamedStreams).toBe(5); // admin, ann (old and new address), bob, gone
    expect(result.compared?.users).toBe(4);
    expect(lines.join('\n')).toMatch(/read models match/);
    expect(lines).toContain(`published anchors of the old log archived to ${result.archivedAnchors}`);

    // No personal data or hash in the log, its stream ids or its metadata.
    const raw = await db.pool.query('SELECT stream_id, data::text AS d, metadata::text AS m FROM es_events');
    for (const r of raw.rows) {
      const text = `${r.stream_id} ${r.d} ${r.m}`.toLowerCase();
      for (const secret of ['@migrate.test', 'oldlog', 'renamed', 'argon2', '192.0.2.44', '"bob"'])
        expect(text).not.toContain(secret);
    }
    expect(await legacyEventsPresent(db.pool)).toBe(false);

    // The product starts, rebuilds its read models from the new log, and they are what they were.
    const started = await startApp(config());
    try {
      await caughtUp(started);
      expect(await readModels()).toEqual(before);
      const app = started.app;
      await expect(
        login(app, { email: 'ann.new@migrate.test', password: 'ann-password-1' }, { ip: null }),
      ).resolves.toBeTruthy();
      await expect(
        login(app, { email: 'bob.old@migrate.test', password: 'bob-password-2' }, { ip: null }),
      ).resolves.toBeTruthy();
      await expect(
        login(app, { email: 'bob.old@migrate.test', password: 'bob-password-1' }, { ip: null }),
      ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      // The old address is free again (its claim stream kept its history under the new name).
      await expect(
        registerUser(
          app,
          { id: 1, role: 'ADMIN', email: 'admin@migrate.test' },
          {
            email: 'ann.old@migrate.test',
            password: 'another-one-1',
            firstName: null,
            lastName: null,
            role: 'GUEST',
          },
        ),
      ).resolves.toMatchObject({ email: 'ann.old@migrate.test' });
      await expect(
        registerUser(
          app,
          { id: 1, role: 'ADMIN', email: 'admin@migrate.test' },
          {
            email: 'bob.old@migrate.test',
            password: 'another-one-1',
            firstName: null,
            lastName: null,
            role: 'GUEST',
          },
        ),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await started.close();
    }

    // Run again: nothing to do.
    expect((await migrateLog({ pool: db.pool, encryptionKey: secrets.ENCRYPTION_KEY })).migrated).toBe(false);
  });

  it('archives the old log’s published anchors beside them, and the new log verifies clean', async () => {
    const file = await anchorFile(db.pool);
    expect(migrated.archivedAnchors).toMatch(/\.jsonl\.before-migrate-\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z$/);
    expect(migrated.archivedAnchors?.startsWith(`${file}.`)).toBe(true);
    expect(readFileSync(migrated.archivedAnchors as string, 'utf8')).toBe(published);
    // What the file holds now (if the product's anchor job ran since) is the new log's alone.
    if (existsSync(file)) expect(readFileSync(file, 'utf8')).not.toContain(published.split('\n')[0]);
    // The new log anchored and published afresh: `audit verify` finds nothing, no old anchor removed.
    const started = await startApp(config());
    try {
      await writeAnchors(db.pool, started.app.store);
    } finally {
      await started.close();
    }
    const r = await verifyLog(db.pool);
    expect(r.findings).toEqual([]);
    expect(r).toMatchObject({ unanchored: 0, published: r.anchors });
    expect(r.anchors).toBeGreaterThan(0);
  });
});
