// The progress bar of one vendor sync: vendorSyncProgress pushes counts page by page until done.
import { useSubscription } from 'urql';
import { graphql } from '../../../lib/graphql';

export const VendorSyncProgressSubscription = graphql(`
  subscription VendorSyncProgress($syncId: String!) {
    vendorSyncProgress(syncId: $syncId) {
      syncId
      processed
      synced
      failed
      total
      done
      waiting
      resumesAt
    }
  }
`);

export interface SyncProgress {
  processed: number;
  synced: number;
  failed: number;
  total: number | null;
  done: boolean;
  /** QuickBooks asked to wait (throttled) or did not answer: the sync goes on at `resumesAt`. */
  waiting: boolean;
  resumesAt: string | null;
}

export function useVendorSyncProgress(syncId: string | null): SyncProgress | null {
  const [result] = useSubscription({
    query: VendorSyncProgressSubscription,
    variables: { syncId: syncId ?? '' },
    pause: !syncId,
  });
  const p = result.data?.vendorSyncProgress;
  return p && p.syncId === syncId ? p : null;
}
