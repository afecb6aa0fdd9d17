// Changing ENCRYPTION_KEY (key-rotation.ts) on the whole product: after `npm run rotate-key` the
// product starts on the new key alone and reads everything it read before (personal fields,
// QuickBooks secrets, read models rebuilt from the log), the e-mail claims of the log still bind
// (the blind index kept its key, through two rotations), the old key is refused, and a rotation
// that fails half-way changes nothing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjection } from '../../projections/rebuild.js';
import { testAppEnv } from '../../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { api, signIn } from '../../test/support/http.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { rotateLocalKey } from '../../tools/rotate-key.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import { type StartedApp, startApp } from '../main.js';
import { projections } from '../modules/index.js';
import { QbConnections } from '../quickbooks/connections.js';
import { loadConfig } from '../shared/config.js';
import { createPool, otherConnections } from '../shared/db.js';
import { login, registerUser } from '../users/auth.js';
import { deleteUser, forgetUser } from '../users/users.js';
import { RotationRefused, rotateEncryptionKey } from './key-rotation.js';
import { deriveKek, wrapKey } from './subject-keys.js';

const newKey = () => randomBytes(32).toString('base64');
const keyA = newKey();
const keyB = newKey();
const keyC = newKey();

let db: TestDatabase;
let redis: TestRedis;
let env: Record<string, string>;
const admin = { email: 'admin@rotate.test', password: 'Admin-Passw0rd!' };

async function start(encryptionKey: string): Promise<StartedApp> {
  return startApp(loadConfig({ HOST: '127.0.0.1', PORT: '0', ...env, ENCRYPTION_KEY: encryptionKey }));
}

async function adminActor(app: AppServices): Promise<Actor> {
  const row = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('role', '=', 'ADMIN')
    .executeTakeFirstOrThrow();
  return { id: row.id, role: 'ADMIN', email: row.email ?? '' };
}

/** The rotation's own connection: it refuses while any other is open. */
/**
 * Until the database has no connection but ours: a pool ended a moment ago leaves its backend
 * visible to pg_stat_activity for a little while (longer on a busy host).
 */
async function untilAlone() {
  for (let i = 0; i < 100; i++) {
    if ((await withOnePool((pool) => otherConnections(pool))) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withOnePool<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createPool({ connectionString: db.url, max: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

async function keyRows() {
  return withOnePool(async (pool) => {
    const subjects = await pool.query('SELECT subject, wrapped FROM subject_keys ORDER BY subject');
    const material = await pool.query('SELECT name, wrapped FROM key_material ORDER BY name');
    return { subjects: subjects.rows, material: material.rows };
  });
}

async function readModels(app: AppServices) {
  const users = await app.pool.query(
    'SELECT id, email, first_name, last_name, role, is_active, erased_at FROM users ORDER BY id',
  );
  const activity = await app.pool.query(
    'SELECT id, description, actor_name, subject_name FROM activity ORDER BY position',
  );
  return { users: users.rows, activity: activity.rows };
}

/** The same edit of Rita's, with the same Idempotency-Key, as a client retrying it would send. */
async function retriedEdit(url: string) {
  const token = (await signIn(url, admin.email, admin.password)).tokens.accessToken;
  return api(url, 'PUT', `/api/user/users/${ritaId}`, {
    body: { lastName: 'Rotate' },
    token,
    headers: { 'idempotency-key': 'edit-before-the-change' },
  });
}

const rita = { email: 'Rita.Rotate@Keys.test', password: 'rita-secret-1' };
let ritaId: number;
let forgottenId: number;
let before: Awaited<ReturnType<typeof readModels>>;

beforeAll(async () => {
  db = await createTestDatabase('rotate');
  await db.pool.end();
  redis = await createTestRedis('rotate');
  env = testAppEnv(db, redis, admin);
  // The product on the first key: a user, a forgotten user, a company's QuickBooks secret.
  const first = await start(keyA);
  try {
    const app = first.app;
    const actor = await adminActor(app);
    ritaId = (
      await registerUser(app, actor, { ...rita, firstName: 'Rita', lastName: 'Rotate', role: 'USER' })
    ).id;
    const gone = await registerUser(app, actor, {
      email: 'gone@keys.test',
      password: 'gone-secret-1',
      firstName: 'Gone',
      lastName: 'Person',
      role: 'USER',
    });
    forgottenId = gone.id;
    await deleteUser(app, actor, gone.id);
    await forgetUser(app, actor, gone.id);
    await new QbConnections(app.pool, app.subjectKeys).saveCredentials(42, 'client-42', 'qb-secret-42', true);
    // An answer kept for an Idempotency-Key retry, sealed and found under the first key.
    expect((await retriedEdit(first.url!)).status).toBe(200);
    before = await readModels(app);

    // Refused while the product runs: its processes hold keys and wrap new ones with the old key.
    const rows = await keyRows();
    await expect(withOnePool((pool) => rotateEncryptionKey({ pool, from: keyA, to: keyB }))).rejects.toThrow(
      /Stop Billflow first/,
    );
    expect(await keyRows()).toEqual(rows);
  } finally {
    await first.close();
  }
}, 60_000);

afterAll(async () => {
  await redis?.cleanup();
  await db?.drop();
});

describe('changing ENCRYPTION_KEY', () => {
  it('refuses a wrong current key, and a rotation that fails half-way changes nothing', async () => {
    const rows = await keyRows();
    await expect(
      withOnePool((pool) => rotateEncryptionKey({ pool, from: newKey(), to: keyB })),
    ).rejects.toThrow(/current key does not open/);
    expect(await keyRows()).toEqual(rows);

    // 1,500 more subjects (two pages of the rotation), and last in its order a row that no key
    // opens: the first page is re-wrapped, then the bad row stops the rotation. All rolled back.
    await withOnePool(async (pool) => {
      const kek = deriveKek(keyA);
      const subjects = Array.from({ length: 1500 }, (_, i) => `vendor-${String(i).padStart(5, '0')}`);
      await pool.query(
        'INSERT INTO subject_keys (subject, wrapped) SELECT * FROM unnest($1::text[], $2::bytea[])',
        [subjects, subjects.map((s) => wrapKey(kek, s, randomBytes(32)))],
      );
      await pool.query("INSERT INTO subject_keys (subject, wrapped) VALUES ('zz-altered', $1)", [
        randomBytes(60),
      ]);
    });
    const padded = await keyRows();
    const failed = await withOnePool((pool) => rotateEncryptionKey({ pool, from: keyA, to: keyB })).catch(
      (e: Error) => e,
    );
    expect(failed).toBeInstanceOf(RotationRefused);
    expect((failed as Error).message).toMatch(/zz-altered does not open/);
    expect(await keyRows()).toEqual(padded);
    await withOnePool((pool) => pool.query("DELETE FROM subject_keys WHERE subject = 'zz-altered'"));
  });

  it('moves every key to the new one; the product then reads all it read before, and the old key is refused', async () => {
    const result = await withOnePool((pool) => rotateEncryptionKey({ pool, from: keyA, to: keyB }));
    // Rita, the admin, the company, the 1,500 made-up subjects; the forgotten one has no key.
    expect(result).toMatchObject({ alreadyDone: false, material: 1, forgotten: 1 });
    expect(result.subjectKeys).toBeGreaterThanOrEqual(1503);
    // Once done, again: nothing to do.
    expect(await withOnePool((pool) => rotateEncryptionKey({ pool, from: keyA, to: keyB }))).toMatchObject({
      alreadyDone: true,
      subjectKeys: 0,
    });

    await expect(start(keyA)).rejects.toThrow(/ENCRYPTION_KEY is not the key this database was written with/);
    const second = await start(keyB);
    try {
      const app = second.app;
      const actor = await adminActor(app);
      // The log opens with the new key: a rebuild gives the read models of before (first: a sign-in
      // adds to them), the forgotten user still erased.
      for (const p of projections.filter((x) => x.name === 'users' || x.name === 'activity'))
        await rebuildProjection(app.db as never, app.store, p);
      expect(await readModels(app)).toEqual(before);
      expect(before.users.find((u) => u.id === forgottenId)).toMatchObject({ email: null, first_name: null });
      await expect(login(app, rita, { ip: null })).resolves.toMatchObject({ user: { id: ritaId } });
      // The claim of her address in the log still binds: the blind index kept its key.
      await expect(
        registerUser(app, actor, {
          email: 'rita.rotate@keys.test',
          password: 'copycat-secret-1',
          firstName: 'Copy',
          lastName: 'Cat',
          role: 'USER',
        }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      expect((await new QbConnections(app.pool, app.subjectKeys).get(42))?.clientSecret).toBe('qb-secret-42');
      // The retry's kept answer was dropped with the old key: it runs again rather than being
      // refused (422) as another request by a fingerprint it can no longer match.
      expect(result.idempotencyAnswers).toBeGreaterThanOrEqual(1);
      expect((await retriedEdit(second.url!)).status).toBe(200);
      // And new subjects get keys under the new key.
      await registerUser(app, actor, {
        email: 'after@keys.test',
        password: 'after-secret-1',
        firstName: 'After',
        lastName: 'Rotation',
        role: 'USER',
      });
    } finally {
      await second.close();
    }
  }, 60_000);

  it('a second change keeps the blind index of the first key, and a local checkout finishes an interrupted change', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'billflow-rotate-'));
    const secretsFile = path.join(dir, 'secrets.json');
    const saved = { JWT_SECRET: 'j'.repeat(64), ENCRYPTION_KEY: keyB, ADMIN_PASSWORD: 'local-admin' };
    writeFileSync(secretsFile, JSON.stringify(saved));
    const read = () => JSON.parse(readFileSync(secretsFile, 'utf8'));

    // Refused while another connection is open: the file is left as it was.
    const other = createPool({ connectionString: db.url, max: 1 });
    await other.query('SELECT 1');
    await expect(withOnePool((pool) => rotateLocalKey({ pool, secretsFile }))).rejects.toThrow(
      /Stop Billflow first/,
    );
    await other.end();
    await untilAlone();
    expect(read()).toEqual(saved);

    // A local change: a new random key, saved once the database is under it.
    const first = await withOnePool((pool) => rotateLocalKey({ pool, secretsFile }));
    expect(first.alreadyDone).toBe(false);
    const keyD = read().ENCRYPTION_KEY;
    expect(keyD).not.toBe(keyB);
    expect(read()).toEqual({ ...saved, ENCRYPTION_KEY: keyD });

    // Interrupted after the database moved, before the file did: running again only fixes the file.
    await withOnePool((pool) => rotateEncryptionKey({ pool, from: keyD, to: keyC }));
    writeFileSync(secretsFile, JSON.stringify({ ...saved, ENCRYPTION_KEY: keyD, ENCRYPTION_KEY_NEXT: keyC }));
    expect(await withOnePool((pool) => rotateLocalKey({ pool, secretsFile }))).toMatchObject({
      alreadyDone: true,
    });
    expect(read()).toEqual({ ...saved, ENCRYPTION_KEY: keyC });

    // Interrupted before the database moved: it moves to the saved next key, not to a fresh one.
    const keyE = newKey();
    writeFileSync(secretsFile, JSON.stringify({ ...saved, ENCRYPTION_KEY: keyC, ENCRYPTION_KEY_NEXT: keyE }));
    expect(await withOnePool((pool) => rotateLocalKey({ pool, secretsFile }))).toMatchObject({
      alreadyDone: false,
    });
    expect(read()).toEqual({ ...saved, ENCRYPTION_KEY: keyE });

    // Three changes after the first key, the claims of the log still bind and the fields open.
    const last = await start(keyE);
    try {
      const app = last.app;
      await expect(
        registerUser(app, await adminActor(app), {
          email: 'RITA.ROTATE@keys.test',
          password: 'copycat-secret-2',
          firstName: null,
          lastName: null,
          role: 'USER',
        }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      const { events } = await app.store.readStream(`user-${ritaId}`);
      expect(events[0].data).toMatchObject({
        email: rita.email.toLowerCase(),
        firstName: 'Rita',
        lastName: 'Rotate',
      });
    } finally {
      await last.close();
    }
  }, 60_000);
});
