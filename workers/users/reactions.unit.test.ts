// The users process manager's reactions, pure: which jobs each event calls for, with ids from the event.

import { describe, expect, it } from 'vitest';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { usersProcessManager } from './reactions.js';

const stored = (type: string, data: unknown, over: Partial<StoredEvent> = {}): StoredEvent => ({
  id: '3f1c2a9e-0000-4000-8000-000000000001',
  type,
  schemaVersion: schemaVersionOf(type),
  streamId: 'user-7',
  streamVersion: 4,
  position: '1',
  data,
  metadata: { correlationId: 'req-1' },
  createdAt: new Date(),
  ...over,
});
const at = '2026-01-02T03:04:05.000Z';
/** Every reaction carries the request's correlation id and its cause, the event. */
const cause = { correlationId: 'req-1', causationEventId: '3f1c2a9e-0000-4000-8000-000000000001' };

describe('users process manager reactions', () => {
  it('schedules the stale-claim check when an address is claimed', () => {
    const jobs = usersProcessManager.react(
      stored('UserEmailClaimed', { email: 'a@b.c', userId: 7, at }, { streamId: 'useremail-a@b.c' }),
    );
    expect(jobs).toEqual([
      {
        queue: 'users',
        name: 'release-abandoned-claim',
        data: {
          claimStream: 'useremail-a@b.c',
          holder: 7,
          claimEventId: '3f1c2a9e-0000-4000-8000-000000000001',
          ...cause,
        },
        jobId: 'users_3f1c2a9e-0000-4000-8000-000000000001_0',
        delayMs: 5 * 60_000,
      },
    ]);
  });

  it('frees the address held before an e-mail change, and the one held at a delete', () => {
    expect(
      usersProcessManager.react(stored('UserProfileUpdated', { userId: 7, email: 'n@b.c', updatedAt: at })),
    ).toMatchObject([{ name: 'release-address', data: { userId: 7, asOfVersion: 3 } }]);
    expect(
      usersProcessManager.react(stored('UserProfileUpdated', { userId: 7, firstName: 'A', updatedAt: at })),
    ).toEqual([]);
    expect(
      usersProcessManager.react(stored('UserDeleted', { userId: 7, at })).map((j) => [j.name, j.data]),
    ).toEqual([
      ['release-address', { userId: 7, asOfVersion: 4, ...cause }],
      ['observe-admin', { userId: 7, ...cause }],
    ]);
  });

  it('tells the roster about admins, and finishes approved removals', () => {
    const registered = (role: string) =>
      stored('UserRegistered', {
        userId: 7,
        email: 'a@b.c',
        firstName: null,
        lastName: null,
        role,
        isActive: true,
        credentialId: 'h',
        registeredAt: at,
      });
    expect(usersProcessManager.react(registered('ADMIN')).map((j) => j.name)).toEqual(['observe-admin']);
    expect(usersProcessManager.react(registered('USER'))).toEqual([]);
    const approval = {
      userId: 7,
      userVersion: 4,
      change: 'deactivate',
      actorId: 1,
      userCommandId: 'c1',
      at,
    };
    expect(
      usersProcessManager.react(stored('AdminRemovalApproved', approval, { streamId: 'adminroster' })),
    ).toEqual([expect.objectContaining({ name: 'complete-admin-removal', data: { ...approval, ...cause } })]);
  });

  it('asks the same jobs, with the same ids, when an event is replayed', () => {
    const e = stored('UserDeleted', { userId: 7, at });
    expect(usersProcessManager.react(e)).toEqual(usersProcessManager.react(e));
  });
});
