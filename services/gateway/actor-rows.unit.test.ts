// The callers' rows the gateway remembers: served from memory only while notices arrive, dropped on
// a notice about the user, never remembered from a read that a notice overtook, and forgotten on a
// reconnect.
import { describe, expect, it } from 'vitest';
import type { ActorRow } from '../users/user-view.js';
import { ACTOR_ROW_MAX_AGE_MS, ActorRows } from './actor-rows.js';

const admin: ActorRow = { id: 7, role: 'ADMIN', email: 'a@x.test', is_active: true, deleted_at: null };

function source(initial: ActorRow) {
  let row: ActorRow | undefined = initial;
  let connected = true;
  let pending: Array<() => void> | null = null;
  const s = {
    reads: 0,
    set(next: ActorRow | undefined) {
      row = next;
    },
    setConnected(c: boolean) {
      connected = c;
    },
    /** Holds the next reads until `release` (a read overtaken by a notice). */
    hold() {
      pending = [];
    },
    release() {
      const p = pending ?? [];
      pending = null;
      for (const go of p) go();
    },
    connected: () => connected,
    read: async (_id: number) => {
      s.reads++;
      const seen = row;
      if (pending) await new Promise<void>((go) => pending!.push(go));
      return seen;
    },
  };
  return s;
}

describe('ActorRows', () => {
  it('reads a caller once, then serves it from memory while nothing is said about them', async () => {
    const s = source(admin);
    const rows = new ActorRows(s);
    expect(await rows.get(7)).toEqual(admin);
    expect(await rows.get(7)).toEqual(admin);
    expect(s.reads).toBe(1);
    // A notice about someone else changes nothing.
    rows.noticed([
      { topic: 'user', id: '8' },
      { topic: 'activity', id: 'x' },
    ]);
    expect(await rows.get(7)).toEqual(admin);
    expect(s.reads).toBe(1);
  });

  it('reads afresh after a notice about the caller: a demotion or deactivation counts at once', async () => {
    const s = source(admin);
    const rows = new ActorRows(s);
    await rows.get(7);
    s.set({ ...admin, role: 'USER' });
    rows.noticed([{ topic: 'user', id: '7', data: { type: 'UserRoleChanged' } }]);
    expect((await rows.get(7))?.role).toBe('USER');
    s.set({ ...admin, is_active: false });
    rows.noticed([{ topic: 'user', id: '7', data: { type: 'UserDeactivated' } }]);
    expect((await rows.get(7))?.is_active).toBe(false);
    expect(s.reads).toBe(3);
  });

  it('does not remember a read that a notice overtook (it may hold the row from before the change)', async () => {
    const s = source(admin);
    const rows = new ActorRows(s);
    s.hold();
    const inFlight = rows.get(7);
    // The change commits and its notice arrives while the read is still out.
    s.set({ ...admin, is_active: false });
    rows.noticed([{ topic: 'user', id: '7' }]);
    s.release();
    expect((await inFlight)?.is_active).toBe(true);
    expect((await rows.get(7))?.is_active).toBe(false);
    expect(s.reads).toBe(2);
  });

  it('neither serves nor remembers while notices cannot arrive, and forgets all on a reconnect', async () => {
    const s = source(admin);
    const rows = new ActorRows(s);
    await rows.get(7);
    s.setConnected(false);
    s.set({ ...admin, role: 'GUEST' });
    expect((await rows.get(7))?.role).toBe('GUEST');
    expect((await rows.get(7))?.role).toBe('GUEST');
    expect(s.reads).toBe(3);
    s.setConnected(true);
    s.set({ ...admin, role: 'MODERATOR' });
    rows.clear(); // LiveBus.onReconnect
    expect((await rows.get(7))?.role).toBe('MODERATOR');
    expect(s.reads).toBe(4);
  });

  it('reads again after the longest age, notice or not', async () => {
    const s = source(admin);
    const rows = new ActorRows(s, 40);
    await rows.get(7);
    s.set({ ...admin, role: 'USER' });
    expect((await rows.get(7))?.role).toBe('ADMIN');
    await new Promise((r) => setTimeout(r, 80));
    expect((await rows.get(7))?.role).toBe('USER');
    expect(s.reads).toBe(2);
    expect(ACTOR_ROW_MAX_AGE_MS).toBeLessThanOrEqual(2000);
  });

  it('remembers that a caller does not exist, until a notice about them', async () => {
    const s = source(admin);
    s.set(undefined);
    const rows = new ActorRows(s);
    expect(await rows.get(7)).toBeUndefined();
    expect(await rows.get(7)).toBeUndefined();
    expect(s.reads).toBe(1);
    s.set(admin);
    rows.noticed([{ topic: 'user', id: '7', data: { type: 'UserRegistered' } }]);
    expect(await rows.get(7)).toEqual(admin);
  });
});
