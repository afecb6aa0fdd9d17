// The users process manager: the parts of the users flows that must finish even when the request
// that started them did not (a crash between two commands), run as reactions on the log (queue
// `users`). Each job is idempotent and reports back as a command with a deterministic id:
//
// - release-address: a user deleted, or re-addressed, frees the address they held. The request
//   does it at once too, with the same command id (from the claim event): one release either way.
// - release-abandoned-claim: STALE_CLAIM_MS after an address was claimed, frees the claim if its
//   holder's stream does not show the address (a registration or e-mail change that never followed).
// - observe-admin: the admin roster learns who is an active ADMIN from the user's own stream.
// - complete-admin-removal: lands an approved ADMIN removal whose request did not (same command id).
import { userEvents } from '../../schema/users/events.js';
import type { AppServices } from '../../services/app/context.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { completeAdminRemoval, observeAdmin } from '../../services/users/admin-roster.js';
import { releaseAbandonedClaim, STALE_CLAIM_MS } from '../../services/users/auth.js';
import { userDecider } from '../../services/users/user-decider.js';
import { eraseSubject } from '../../services/users/users.js';
import {
  type JobHandler,
  jobContext,
  type ProcessManager,
  type ReactionJob,
  reactionJobId,
} from '../process-manager.js';

const NAME = 'users';

/** The queue of the users flows' reactions (e-mail claims, the last-admin guard). */
export const USERS_QUEUE = 'users';

export const usersProcessManager: ProcessManager = {
  name: NAME,
  handles: [
    'UserEmailClaimed',
    'UserProfileUpdated',
    'UserDeleted',
    'UserRegistered',
    'UserRoleChanged',
    'UserDeactivated',
    'UserReactivated',
    'AdminRemovalApproved',
    'UserForgotten',
  ],
  // From the beginning: on a log from before this process manager, the roster learns every admin
  // and old abandoned claims are freed (every job is a no-op where there is nothing to do).
  startAt: 'beginning',
  react(stored: StoredEvent): ReactionJob[] {
    const event = decodeUserEvent(stored);
    // A reaction belongs to the request that caused its event: it carries that correlation id, and
    // the event as its cause, so auditors follow one request across the reactions too.
    const job = (name: string, data: Record<string, unknown>, n = 0, delayMs?: number): ReactionJob => ({
      queue: USERS_QUEUE,
      name,
      data: { ...data, correlationId: stored.metadata.correlationId ?? null, causationEventId: stored.id },
      jobId: reactionJobId(NAME, stored, n),
      ...(delayMs ? { delayMs } : {}),
    });
    switch (event.type) {
      case 'UserEmailClaimed':
        // The claim stream and event: the job finds the address in the event (the stream id is only
        // its blind index, and job data holds no personal data).
        return [
          job(
            'release-abandoned-claim',
            { claimStream: stored.streamId, holder: event.data.userId, claimEventId: stored.id },
            0,
            STALE_CLAIM_MS,
          ),
        ];
      case 'UserProfileUpdated':
        // The address held before this event is the one to free.
        return event.data.email === undefined
          ? []
          : [job('release-address', { userId: event.data.userId, asOfVersion: stored.streamVersion - 1 })];
      case 'UserDeleted':
        return [
          job('release-address', { userId: event.data.userId, asOfVersion: stored.streamVersion }),
          job('observe-admin', { userId: event.data.userId }, 1),
        ];
      case 'UserRegistered':
        return event.data.role === 'ADMIN' && event.data.isActive
          ? [job('observe-admin', { userId: event.data.userId })]
          : [];
      case 'UserRoleChanged':
        return event.data.from === 'ADMIN' || event.data.to === 'ADMIN'
          ? [job('observe-admin', { userId: event.data.userId })]
          : [];
      case 'UserDeactivated':
      case 'UserReactivated':
        return [job('observe-admin', { userId: event.data.userId })];
      case 'AdminRemovalApproved':
        return [job('complete-admin-removal', { ...event.data })];
      case 'UserForgotten':
        // The request deletes the key at once; this makes sure of it after a crash in between.
        return [job('erase-subject', { userId: event.data.userId })];
      default:
        return [];
    }
  },
};

const decodeUserEvent = eventDecoder(userEvents);

/** The address a user held as of one version of their stream. */
async function addressAsOf(app: AppServices, userId: number, version: number) {
  const { events } = await app.store.readStream(userDecider.streamId(userId), { maxCount: version });
  let state = userDecider.initialState();
  for (const e of events) state = userDecider.evolve(state, decodeUserEvent(e));
  return state.email;
}

// The services name these commands' ids themselves (from the claim event, or none for an observation),
// so the job's context carries no command id of its own.
export const usersJobHandlers: Record<string, JobHandler> = {
  async 'release-address'(app, job) {
    const { userId, asOfVersion } = job.data as { userId: number; asOfVersion: number };
    const email = await addressAsOf(app, userId, asOfVersion);
    if (!email) return { released: false };
    return {
      released: await releaseAbandonedClaim(app, email, userId, jobContext(job, { jobCommandId: false })),
    };
  },
  async 'release-abandoned-claim'(app, job) {
    const { claimStream, holder, claimEventId } = job.data as {
      claimStream: string;
      holder: number;
      claimEventId: string;
    };
    const { events } = await app.store.readStream(claimStream);
    const claim = events.find((e) => e.id === claimEventId);
    const email = (claim?.data as { email?: string | null } | undefined)?.email;
    // Gone, or erased with its user (whose delete released the claim already).
    if (!email) return { released: false };
    // Only the claim this job was scheduled for: a newer claim by the same holder has its own job.
    const released = await releaseAbandonedClaim(
      app,
      email,
      holder,
      jobContext(job, { jobCommandId: false }),
      { claimEventId },
    );
    return { released };
  },
  async 'observe-admin'(app, job) {
    await observeAdmin(
      app,
      (job.data as { userId: number }).userId,
      jobContext(job, { jobCommandId: false }),
    );
    return { observed: true };
  },
  async 'erase-subject'(app, job) {
    await eraseSubject(app, (job.data as { userId: number }).userId);
    return { erased: true };
  },
  async 'complete-admin-removal'(app, job) {
    const approval = job.data as Parameters<typeof completeAdminRemoval>[1];
    return { outcome: await completeAdminRemoval(app, approval) };
  },
};
