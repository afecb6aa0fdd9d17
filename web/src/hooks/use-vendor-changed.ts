// Live updates of vendors: the vendorChanged subscription. The list refetches and the detail page
// reloads when any session (or a sync, or an import) changes a vendor.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export const VendorsChanged = graphql(`
  subscription VendorsChanged($id: Int) {
    vendorChanged(id: $id) {
      id
      type
    }
  }
`);

export function useVendorChanged(
  id: number | null,
  onChange: (change: { id: number; type: string }) => void,
  options: { pause?: boolean } = {},
) {
  const [result, resubscribe] = useSubscription({
    query: VendorsChanged,
    variables: { id },
    pause: options.pause,
  });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.vendorChanged;
  useEffect(() => {
    if (change) latest.current(change);
  }, [change]);
}
