// Live updates of vendors: the vendorChanged subscription. The list refetches and the detail page
// reloads when any session (or a sync, or an import) changes a vendor.
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

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
  useLiveChange(VendorsChanged, { id }, (d) => d.vendorChanged, onChange, options.pause);
}
