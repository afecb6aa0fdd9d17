// Personal data out of the immutable log, on the whole product: what the log
// holds after real commands, and what forgetting a user does to the log, the keys and every read
// model, including a rebuild after it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjection } from '../../projections/rebuild.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import { startApp } from '../main.js';
import { projections } from '../modules/index.js';
import { loadConfig } from '../shared/config.js';
import { login, registerUser } from '../users/auth.js';
import { adminChangePassword, deleteUser, forgetUser } from '../users/users.js';
import type { PersonalDataStore } from './personal-data.js';
import { EncryptionKeyMismatchError, SubjectKeys } from './subject-keys.js';

let t: TestApp;
let app: AppServices;
let admin: Actor;

/** Every stored event of the log as Postgres holds it: stream id, type and data as text. */
async function rawLog() {
  const r = await app.pool.query<{ stream_id: string; event_type: string; data: string; metadata: string }>(
    'SELECT stream_id, event_type, data::text AS data, metadata::text AS metadata FROM es_events',
  );
  return r.rows;
}

async function readModels() {
  const users = await app.pool.query('SELECT * FROM users ORDER BY id');
  const activity = await app.pool.query(
    'SELECT id, type, description, template, actor_name, subject_name, actor_id, subject_id FROM activity ORDER BY position',
  );
  const people = await app.pool.query('SELECT * FROM activity_people ORDER BY user_id');
  return { users: users.rows, activity: activity.rows, people: people.rows };
}

beforeAll(async () => {
  t = await startTestApp();
  app = t.started.app;
  const row = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('role', '=', 'ADMIN')
    .executeTakeFirstOrThrow();
  admin = { id: row.id, role: 'ADMIN', email: row.email ?? '' };
});
afterAll(async () => {
  await t?.stop();
});

describe('personal data in the log', () => {
  it('stores no e-mail, name, IP or password hash in any event, stream id or metadata', async () => {
    const email = 'Priya.Plain@Privacy.test';
    const user = await registerUser(app, admin, {
      email,
      password: 'first-secret-1',
      firstName: 'Priya',
      lastName: 'Plainfield',
      role: 'USER',
    });
    await login(app, { email, password: 'first-secret-1' }, { ip: '203.0.113.77' });
    await adminChangePassword(app, admin, user.id, { newPassword: 'second-secret-2' });

    const log = await rawLog();
    const mine = log.filter(
      (e) => e.stream_id.endsWith(`-${user.id}`) || JSON.parse(e.data).userId === user.id,
    );
    // Registered, signed in, password set, and the claim of the address: all there.
    expect(mine.map((e) => e.event_type)).toEqual(
      expect.arrayContaining(['UserRegistered', 'UserSignedIn', 'UserPasswordChanged', 'UserEmailClaimed']),
    );
    for (const e of log) {
      const text = `${e.stream_id} ${e.data} ${e.metadata}`.toLowerCase();
      expect(text).not.toContain('priya');
      expect(text).not.toContain('plainfield');
      expect(text).not.toContain('privacy.test');
      expect(text).not.toContain('203.0.113.77');
      expect(text).not.toContain('$argon2');
      expect(text).not.toContain('admin@billflow.test');
    }
    // Sealed under the user's key, readable through the store.
    const registered = mine.find((e) => e.event_type === 'UserRegistered')!;
    expect(JSON.parse(registered.data).pii).toMatchObject({ k: `user-${user.id}` });
    const { events } = await app.store.readStream(`user-${user.id}`);
    expect(events[0].data).toMatchObject({
      email: email.toLowerCase(),
      firstName: 'Priya',
      lastName: 'Plainfield',
    });
    // The hash is in its own table, and the new password is the one that works.
    const creds = await app.pool.query('SELECT password_hash FROM user_credentials WHERE user_id = $1', [
      user.id,
    ]);
    expect(creds.rows.length).toBeGreaterThanOrEqual(1);
    expect(creds.rows[0].password_hash).toMatch(/^\$argon2id\$/);
    await expect(login(app, { email, password: 'first-secret-1' }, { ip: null })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(login(app, { email, password: 'second-secret-2' }, { ip: null })).resolves.toBeTruthy();
  });

  it('names the claim stream by a keyed hash of the normalised address', async () => {
    const log = await rawLog();
    const claims = log.filter((e) => e.stream_id.startsWith('useremail-'));
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) expect(c.stream_id).toMatch(/^useremail-[A-Za-z0-9_-]{43}$/);
    // The same address however it is written: one claim, so the second create is refused.
    await expect(
      registerUser(app, admin, {
        email: '  PRIYA.plain@privacy.TEST ',
        password: 'another-secret-3',
        firstName: null,
        lastName: null,
        role: 'USER',
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('forgetting a user', () => {
  it('refuses a user who is not deleted, and USERs may not forget anyone', async () => {
    const u = await registerUser(app, admin, {
      email: 'still.here@privacy.test',
      password: 'still-here-1',
      firstName: 'Still',
      lastName: 'Here',
      role: 'USER',
    });
    await expect(forgetUser(app, admin, u.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(forgetUser(app, { id: u.id, role: 'USER', email: u.email }, u.id)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(
      (
        await app.pool.query('SELECT 1 FROM subject_keys WHERE subject = $1 AND wrapped IS NOT NULL', [
          `user-${u.id}`,
        ])
      ).rowCount,
    ).toBe(1);
  });

  it('deletes the key, erases every read model at once, keeps the events loadable, and a rebuild gives the same read models', async () => {
    const email = 'forget.me@privacy.test';
    const u = await registerUser(app, admin, {
      email,
      password: 'forget-me-1',
      firstName: 'Fiona',
      lastName: 'Forgetful',
      role: 'USER',
    });
    await login(app, { email, password: 'forget-me-1' }, { ip: '198.51.100.9' });
    await deleteUser(app, admin, u.id);
    await forgetUser(app, admin, u.id);

    // The key is gone for good, and so are the credentials.
    const key = await app.pool.query('SELECT wrapped, forgotten_at FROM subject_keys WHERE subject = $1', [
      `user-${u.id}`,
    ]);
    expect(key.rows[0].wrapped).toBeNull();
    expect(key.rows[0].forgotten_at).toBeInstanceOf(Date);
    expect((await app.pool.query('SELECT 1 FROM user_credentials WHERE user_id = $1', [u.id])).rowCount).toBe(
      0,
    );

    // Read models: nothing of Fiona anywhere.
    const before = await readModels();
    const flat = JSON.stringify(before).toLowerCase();
    expect(flat).not.toContain('fiona');
    expect(flat).not.toContain('forgetful');
    expect(flat).not.toContain('forget.me');
    const row = before.users.find((r) => r.id === u.id);
    expect(row).toMatchObject({ email: null, first_name: null, last_name: null });
    expect(row.erased_at).toBeInstanceOf(Date);
    const lines = before.activity.filter((a) => a.subject_id === String(u.id));
    expect(lines.map((l) => l.description)).toEqual(
      expect.arrayContaining([
        `System Administrator created user #${u.id} (erased)`,
        `#${u.id} (erased) signed in`,
        `System Administrator deleted user #${u.id} (erased)`,
      ]),
    );

    // The events still load, in a process that never saw the key, with the fields erased.
    const store = app.store as PersonalDataStore;
    app.subjectKeys.drop(`user-${u.id}`);
    const { events } = await store.readStream(`user-${u.id}`);
    expect(events.map((e) => e.type)).toEqual(['UserRegistered', 'UserDeleted', 'UserForgotten']);
    expect(events[0].data).toMatchObject({
      userId: u.id,
      email: null,
      firstName: null,
      lastName: null,
      role: 'USER',
    });
    expect(events[0].erased).toEqual(['email', 'firstName', 'lastName']);

    // No new personal data can be stored for a forgotten subject.
    await expect(app.subjectKeys.getOrCreate(`user-${u.id}`)).rejects.toThrow(/forgotten/);

    // A rebuild from the log gives the same read models.
    for (const p of projections.filter((x) => x.name === 'users' || x.name === 'activity'))
      await rebuildProjection(app.db as never, app.store, p);
    expect(await readModels()).toEqual(before);
  });
});

describe('a subject’s first key', () => {
  it('is one key for many first uses at once, never a false "forgotten"', async () => {
    const subject = `company-race-${randomBytes(4).toString('hex')}`;
    // Separate SubjectKeys (no shared cache): each first use races the others in Postgres.
    const racers = Array.from({ length: 8 }, () => new SubjectKeys(app.pool, t.env.ENCRYPTION_KEY));
    const keys = await Promise.all(racers.map((k) => k.getOrCreate(subject)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
  });
});

describe('the encryption key', () => {
  it('the product refuses to start on a database written with another ENCRYPTION_KEY, and says so', async () => {
    const otherKey = randomBytes(32).toString('base64');
    const keysBefore = await app.pool.query('SELECT subject, wrapped FROM subject_keys ORDER BY subject');
    expect(keysBefore.rowCount).toBeGreaterThan(0);
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', ...t.env, ENCRYPTION_KEY: otherKey });
    await expect(startApp(config)).rejects.toThrow(
      /ENCRYPTION_KEY is not the key this database was written with/,
    );
    // Nothing was written with the wrong key.
    expect((await app.pool.query('SELECT subject, wrapped FROM subject_keys ORDER BY subject')).rows).toEqual(
      keysBefore.rows,
    );
    // The key it was written with passes the same check; another does not.
    await expect(new SubjectKeys(app.pool, t.env.ENCRYPTION_KEY).assertKeyMatches()).resolves.toBeUndefined();
    await expect(new SubjectKeys(app.pool, otherKey).assertKeyMatches()).rejects.toBeInstanceOf(
      EncryptionKeyMismatchError,
    );
  });
});

describe('credentials', () => {
  it('purges replaced and orphaned hashes past the keep time, never a user’s current one', async () => {
    const u = await registerUser(app, admin, {
      email: 'purge.me@privacy.test',
      password: 'purge-me-first-1',
      firstName: null,
      lastName: null,
      role: 'USER',
    });
    await adminChangePassword(app, admin, u.id, { newPassword: 'purge-me-second-2' });
    const orphan = await app.credentials.store(u.id, '$argon2id$orphan');
    // Everything of this user's looks old now; only the current one must stay.
    await app.pool.query(
      "UPDATE user_credentials SET created_at = now() - interval '30 days' WHERE user_id = $1",
      [u.id],
    );
    expect(await app.credentials.purgeUnused(7 * 86_400_000)).toBeGreaterThanOrEqual(2);
    const left = await app.pool.query('SELECT id FROM user_credentials WHERE user_id = $1', [u.id]);
    expect(left.rows.map((r) => r.id)).not.toContain(orphan);
    expect(left.rowCount).toBe(1);
    await expect(
      login(app, { email: 'purge.me@privacy.test', password: 'purge-me-second-2' }, { ip: null }),
    ).resolves.toBeTruthy();
  });
});
