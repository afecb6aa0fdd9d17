// The progress bar of one vendor sync: vendorSyncProgress pushes counts page by page until done.
import { useSubscription } from 'urql';
import { graphql, type ResultOf } from '../../../lib/graphql';

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

/** Counts so far; `waiting`: QuickBooks asked to wait (or did not answer), the sync goes on at `resumesAt`. */
export type SyncProgress = NonNullable<ResultOf<typeof VendorSyncProgressSubscription>['vendorSyncProgress']>;

export function useVendorSyncProgress(syncId: string | null): SyncProgress | null {
  const [result] = useSubscription({
    query: VendorSyncProgressSubscription,
    variables: { syncId: syncId ?? '' },
    pause: !syncId,
  });
  const p = result.data?.vendorSyncProgress;
  return p && p.syncId === syncId ? p : null;
}
