// Live updates of managers: the managerChanged subscription (GraphQL over the shared socket). While
// it is open, every change of a manager re-reads the managers lists and details on screen through
// the cache (lib/cache-rules.ts).
import { graphql } from '../lib/graphql';
import { useLive } from './use-live';

export const ManagersChanged = graphql(`
  subscription ManagersChanged($id: Int) {
    managerChanged(id: $id) {
      id
      type
    }
  }
`);

/** Keeps the managers on screen live: one manager (`id`) or all (`null`). */
export function useManagerChanged(id: number | null, pause = false) {
  useLive(ManagersChanged, { id }, pause);
}
