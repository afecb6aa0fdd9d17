// The users flows moved onto the users process manager (workers/users/reactions.ts) and the admin roster:
// each job handler finishes a flow whose request crashed half-way, once however often it runs, and
// the last-admin guard holds under concurrent removals without a lock.
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { usersJobHandlers, usersProcessManager } from '../../workers/users/reactions.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import type { StoredEvent } from '../eventstore/port.js';
import { ADMIN_ROSTER_STREAM, adminRosterDecider } from './admin-roster-decider.js';
import { claimEmail, claimStreamOf, registerUser } from './auth.js';
import { userDecider } from './user-decider.js';
import { changeRole, deactivateUser, deleteUser, reactivateUser } from './users.js';

let t: TestApp;
let app: AppServices;
let root: Actor;

const at = (minutesFromNow: number) => new Date(Date.now() + minutesFromNow * 60_000).toISOString();
const PASSWORD = 'long-enough-1';

beforeAll(async () => {
  t = await startTestApp();
  app = t.started.app;
  const row = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('role', '=', 'ADMIN')
    .executeTakeFirstOrThrow();
  root = { id: row.id, role: 'ADMIN', email: row.email ?? '' };
});
afterAll(async () => {
  await t?.stop();
});

/** Runs every job the process manager asks for in reaction to one stored event, as a worker would. */
async function react(event: StoredEvent) {
  const results: unknown[] = [];
  for (const rj of usersProcessManager.react(event)) {
    const job = { id: rj.jobId, name: rj.name, data: rj.data } as unknown as Job;
    results.push(await usersJobHandlers[rj.name](app, job));
  }
  return results;
}
const eventsOf = async (stream: string) => (await app.store.readStream(stream)).events;
const lastOf = async (stream: string, type: string) =>
  (await eventsOf(stream)).findLast((e) => e.type === type)!;
const releases = async (email: string) =>
  (await eventsOf(claimStreamOf(app, email))).filter((e) => e.type === 'UserEmailReleased').length;
const asActor = (u: { id: number; email: string }): Actor => ({ id: u.id, role: 'ADMIN', email: u.email });
const register = (email: string, role: 'ADMIN' | 'USER' = 'USER') =>
  registerUser(app, root, { email, password: PASSWORD, role });
async function activeAdmins() {
  const ids = (await app.db.selectFrom('users').select('id').execute()).map((r) => r.id);
  const out: number[] = [];
  for (const id of ids) {
    const { state } = await app.commands.load(userDecider, userDecider.streamId(id));
    if (state.exists && !state.deleted && state.isActive && state.role === 'ADMIN') out.push(id);
  }
  return out;
}

describe('the users process manager finishes what a crashed request left', () => {
  it('frees a claim whose registration never followed, once, and leaves a registered one alone', async () => {
    await claimEmail(app, 'pm-half@flows.test', 950_001, at(0), {});
    const claimed = await lastOf(claimStreamOf(app, 'pm-half@flows.test'), 'UserEmailClaimed');
    const [job] = usersProcessManager.react(claimed);
    expect(job).toMatchObject({ queue: 'users', name: 'release-abandoned-claim', delayMs: 5 * 60_000 });
    await react(claimed);
    await react(claimed); // a job that runs twice appends once
    expect(await releases('pm-half@flows.test')).toBe(1);
    // The address is free at once for someone else.
    expect((await register('pm-half@flows.test')).email).toBe('pm-half@flows.test');
    const held = await lastOf(claimStreamOf(app, 'pm-half@flows.test'), 'UserEmailClaimed');
    await react(held);
    expect(await releases('pm-half@flows.test')).toBe(1);
  });

  it('frees the address of a user deleted by a request that crashed before its release', async () => {
    const user = await register('pm-gone@flows.test');
    // The crash: the delete landed, the release did not.
    await app.commands.handle(userDecider, userDecider.streamId(user.id), {
      type: 'DeleteUser',
      actorId: root.id,
      now: at(0),
    });
    await react(await lastOf(userDecider.streamId(user.id), 'UserDeleted'));
    expect(await releases('pm-gone@flows.test')).toBe(1);
    expect((await register('pm-gone@flows.test')).id).not.toBe(user.id);
  });

  it('appends one release whoever gets there first: the delete request or the reaction to it', async () => {
    const user = await register('pm-once@flows.test');
    await deleteUser(app, root, user.id);
    await react(await lastOf(userDecider.streamId(user.id), 'UserDeleted'));
    expect(await releases('pm-once@flows.test')).toBe(1);
    // The address is usable again right away (the request released it).
    await register('pm-once@flows.test');
  });

  it('frees the old address after an e-mail change whose release was lost', async () => {
    const user = await register('pm-old@flows.test');
    await claimEmail(app, 'pm-new@flows.test', user.id, at(0), {});
    await app.commands.handle(userDecider, userDecider.streamId(user.id), {
      type: 'UpdateUserProfile',
      email: 'pm-new@flows.test',
      now: at(0),
    });
    await react(await lastOf(userDecider.streamId(user.id), 'UserProfileUpdated'));
    expect(await releases('pm-old@flows.test')).toBe(1);
    expect(await releases('pm-new@flows.test')).toBe(0);
  });

  it('lands an approved ADMIN removal whose request crashed before the user command', async () => {
    const a = await register('pm-admin-a@flows.test', 'ADMIN');
    const b = await register('pm-admin-b@flows.test', 'ADMIN');
    const { version } = await app.commands.load(userDecider, userDecider.streamId(b.id));
    // The crash: the roster approved deactivating b, the user command never ran.
    await app.commands.handle(adminRosterDecider, ADMIN_ROSTER_STREAM, {
      type: 'ApproveAdminRemoval',
      userId: b.id,
      userVersion: version,
      change: 'deactivate',
      actorId: a.id,
      userCommandId: 'crashed-removal-1',
      now: at(0),
    });
    const approval = await lastOf(ADMIN_ROSTER_STREAM, 'AdminRemovalApproved');
    // The running process manager may have got there first: either way the command lands once.
    expect(['completed', 'already-done']).toContain(
      ((await react(approval))[0] as { outcome: string }).outcome,
    );
    expect(await react(approval)).toEqual([{ outcome: 'already-done' }]);
    const landed = (await eventsOf(userDecider.streamId(b.id))).filter((e) => e.type === 'UserDeactivated');
    expect(landed).toHaveLength(1);
    const { state } = await app.commands.load(userDecider, userDecider.streamId(b.id));
    expect(state.isActive).toBe(false);
    await reactivateUser(app, asActor(a), b.id);
  });
});

describe('end to end: the process-manager runner and the workers of the test app react by themselves', () => {
  const eventually = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 300 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
    return check();
  };

  it('frees the address of a user whose delete request crashed before the release', async () => {
    const user = await register('e2e-gone@flows.test');
    await app.commands.handle(userDecider, userDecider.streamId(user.id), {
      type: 'DeleteUser',
      actorId: root.id,
      now: at(0),
    });
    expect(await eventually(async () => (await releases('e2e-gone@flows.test')) === 1)).toBe(true);
    await register('e2e-gone@flows.test');
  });

  it('lands an approved ADMIN removal whose request crashed', async () => {
    const a = await register('e2e-admin-a@flows.test', 'ADMIN');
    const b = await register('e2e-admin-b@flows.test', 'ADMIN');
    const { version } = await app.commands.load(userDecider, userDecider.streamId(b.id));
    await app.commands.handle(adminRosterDecider, ADMIN_ROSTER_STREAM, {
      type: 'ApproveAdminRemoval',
      userId: b.id,
      userVersion: version,
      change: 'demote',
      role: 'MODERATOR',
      actorId: a.id,
      userCommandId: 'crashed-removal-e2e',
      now: at(0),
    });
    const demoted = async () =>
      (await app.commands.load(userDecider, userDecider.streamId(b.id))).state.role === 'MODERATOR';
    expect(await eventually(demoted)).toBe(true);
  });
});

describe('the last-admin guard without a lock', () => {
  it('keeps one active ADMIN when two admins remove each other concurrently, round after round', async () => {
    const x = await register('guard-x@flows.test', 'ADMIN');
    const y = await register('guard-y@flows.test', 'ADMIN');
    // Only x and y are active admins: everyone else who is one steps down (x acts).
    for (const id of await activeAdmins())
      if (id !== x.id && id !== y.id) await deactivateUser(app, asActor(x), id);
    expect((await activeAdmins()).sort()).toEqual([x.id, y.id].sort());
    const moves = [
      (by: Actor, target: number) => changeRole(app, by, target, { role: 'USER' }),
      (by: Actor, target: number) => deactivateUser(app, by, target),
    ];
    for (let round = 0; round < 4; round++) {
      const [p, q] = [moves[round % 2], moves[(round + 1) % 2]];
      const results = await Promise.allSettled([p(asActor(x), y.id), q(asActor(y), x.id)]);
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(ok, `round ${round}`).toHaveLength(1);
      expect(refused[0].reason).toMatchObject({ code: 'CONFLICT' });
      const left = await activeAdmins();
      expect(left).toHaveLength(1);
      // Put the other back: whoever is left promotes and reactivates them.
      const survivor = left[0] === x.id ? x : y;
      const other = survivor === x ? y : x;
      await changeRole(app, asActor(survivor), other.id, { role: 'ADMIN' });
      await reactivateUser(app, asActor(survivor), other.id);
      expect((await activeAdmins()).sort()).toEqual([x.id, y.id].sort());
    }
    // Still, the very last one cannot be removed.
    await deactivateUser(app, asActor(x), y.id);
    await expect(deleteUser(app, asActor(y), x.id)).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
