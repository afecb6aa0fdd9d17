// A company's vendor syncs as a decider, on a stream of their own (`vendorsync-<companyId>`): one
// sync of a company at a time, each completed once however often its job runs.
import type { VendorSyncEvent } from '../../schema/vendors/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface VendorSyncState {
  /** Syncs requested and not completed, by id. */
  running: Map<string, { limit: number; offset: number; at: string }>;
  completed: Set<string>;
}

export type VendorSyncCommand =
  | {
      type: 'RequestVendorSync';
      syncId: string;
      companyId: number;
      limit: number;
      offset: number;
      now: string;
    }
  | {
      type: 'CompleteVendorSync';
      syncId: string;
      companyId: number;
      synced: number;
      failed: number;
      error: string | null;
      now: string;
    };

/** How long a queued or running sync takes in the requests for the same sync (see decide). */
export const SYNC_COALESCE_MS = 60 * 60_000;

/** The queued or running sync that a request for this limit and offset joins, if any. */
export function joinedSync(state: VendorSyncState, limit: number, offset: number, now: string) {
  const since = Date.parse(now) - SYNC_COALESCE_MS;
  for (const [syncId, s] of state.running)
    if (s.limit === limit && s.offset === offset && Date.parse(s.at) > since) return syncId;
  return null;
}

export const vendorSyncDecider = {
  initialState: (): VendorSyncState => ({ running: new Map(), completed: new Set() }),
  evolve(state: VendorSyncState, event: VendorSyncEvent): VendorSyncState {
    switch (event.type) {
      case 'VendorSyncRequested': {
        const running = new Map(state.running);
        running.set(event.data.syncId, {
          limit: event.data.limit,
          offset: event.data.offset,
          at: event.data.at,
        });
        return { ...state, running };
      }
      case 'VendorSyncCompleted': {
        const running = new Map(state.running);
        running.delete(event.data.syncId);
        const completed = new Set(state.completed);
        completed.add(event.data.syncId);
        return { running, completed };
      }
    }
  },
  decide(command: VendorSyncCommand, state: VendorSyncState): VendorSyncEvent[] {
    if (command.type === 'RequestVendorSync') {
      const { syncId, companyId, limit, offset, now } = command;
      // One sync of a company at a time: a request while the same sync is queued or running joins
      // it (twenty at once ran twenty jobs against one realm's budget). A sync
      // requested over SYNC_COALESCE_MS ago no longer holds new ones back (its job may be lost).
      if (joinedSync(state, limit, offset, now)) return [];
      return [{ type: 'VendorSyncRequested', data: { syncId, companyId, limit, offset, at: now } }];
    }
    // Once per sync: a job that runs twice completes it once.
    if (state.completed.has(command.syncId)) return [];
    if (!state.running.has(command.syncId)) throw new DomainError('NOT_FOUND', 'Vendor sync not found');
    const { syncId, companyId, synced, failed, error, now } = command;
    return [{ type: 'VendorSyncCompleted', data: { syncId, companyId, synced, failed, error, at: now } }];
  },
  streamId: (companyId: number) => `vendorsync-${companyId}`,
} satisfies Decider<VendorSyncState, VendorSyncCommand, VendorSyncEvent>;
