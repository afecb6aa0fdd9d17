// E-mail claims left behind by a crash between two commands: an address stays unique, yet is never
// blocked for good. Each case replays the first half of a flow, "crashes", and claims again later.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { USERS_QUEUE } from '../../workers/users/reactions.js';
import type { AppServices } from '../app/context.js';
import { queuePrefix } from '../shared/queues.js';
import { redisOptions } from '../shared/redis.js';
import { claimEmail, claimStreamOf, registerUser } from './auth.js';
import { emailClaimDecider } from './email-claim-decider.js';
import { userDecider } from './user-decider.js';

let t: TestApp;
let app: AppServices;

const at = (minutesFromNow: number) => new Date(Date.now() + minutesFromNow * 60_000).toISOString();
const claimant = async (email: string) =>
  (await app.commands.load(emailClaimDecider, claimStreamOf(app, email))).state.claimedBy;
const register = (email: string) =>
  registerUser(app, null, { email, password: 'long-enough-1' }, { system: true });

beforeAll(async () => {
  t = await startTestApp();
  app = t.started.app;
});
afterAll(async () => {
  await t.stop();
});

describe('a claim left by a crash', () => {
  it('before the user was registered: refused while it may be in progress, taken over once stale', async () => {
    await claimEmail(app, 'half@claims.test', 900_001, at(0), {});
    await expect(claimEmail(app, 'half@claims.test', 900_002, at(1), {})).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await claimEmail(app, 'half@claims.test', 900_002, at(6), {});
    expect(await claimant('half@claims.test')).toBe(900_002);
  });

  it('after an e-mail change whose release was lost: the old address frees, the new one stays held', async () => {
    // The release is lost: the users process manager's job (release-address) must not run either, or
    // it frees the old address at some moment during the test (it did, under a full run's load).
    const users = new Queue(USERS_QUEUE, {
      connection: redisOptions(app.config.REDIS_URL),
      prefix: queuePrefix(app.config.REDIS_PREFIX),
    });
    await users.pause();
    try {
      await lostRelease();
    } finally {
      await users.resume();
      await users.close();
    }
  });

  async function lostRelease() {
    const user = await register('before@claims.test');
    // The change's first two steps; the crash comes before ReleaseEmail of the old address.
    await claimEmail(app, 'after@claims.test', user.id, at(0), {});
    await app.commands.handle(userDecider, userDecider.streamId(user.id), {
      type: 'UpdateUserProfile',
      email: 'after@claims.test',
      now: at(0),
    });
    await expect(claimEmail(app, 'before@claims.test', 900_003, at(1), {})).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(claimEmail(app, 'after@claims.test', 900_003, at(60), {})).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await claimEmail(app, 'before@claims.test', 900_003, at(6), {});
    expect(await claimant('before@claims.test')).toBe(900_003);
    expect(await claimant('after@claims.test')).toBe(user.id);
  }

  it('after a user was deleted and the release was lost: the address frees once stale', async () => {
    const user = await register('gone@claims.test');
    await app.commands.handle(userDecider, userDecider.streamId(user.id), {
      type: 'DeleteUser',
      actorId: null,
      now: at(0),
    });
    await claimEmail(app, 'gone@claims.test', 900_004, at(6), {});
    expect(await claimant('gone@claims.test')).toBe(900_004);
  });

  it('lets only one of two concurrent take-overs of one stale claim win; the other is refused (409)', async () => {
    for (let round = 0; round < 5; round++) {
      const email = `race-${round}@claims.test`;
      // Stale (made 10 minutes ago, never registered); the take-overs themselves are fresh.
      await claimEmail(app, email, 910_000 + round, at(-10), {});
      const [a, b] = await Promise.allSettled([
        claimEmail(app, email, 920_000 + round, at(0), {}),
        claimEmail(app, email, 930_000 + round, at(0), {}),
      ]);
      const won = [a, b].filter((r) => r.status === 'fulfilled');
      const lost = [a, b].filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(won, `round ${round}`).toHaveLength(1);
      expect(lost[0].reason).toMatchObject({ code: 'CONFLICT' });
      const winner = a.status === 'fulfilled' ? 920_000 + round : 930_000 + round;
      expect(await claimant(email)).toBe(winner);
      // Exactly one take-over appended: the first claim, then the winner's.
      const { events } = await app.store.readStream(claimStreamOf(app, email));
      expect(events.map((e) => (e.data as { userId: number }).userId)).toEqual([910_000 + round, winner]);
    }
  });

  it('never takes an address from a user who holds it, however old the claim', async () => {
    const user = await register('holder@claims.test');
    await expect(claimEmail(app, 'HOLDER@claims.test', 900_005, at(24 * 60), {})).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await claimant('holder@claims.test')).toBe(user.id);
  });
});
