// Live updates of managers: the managerChanged subscription (GraphQL over the shared socket). The
// managers list refetches and a detail page reloads when any session changes a manager.
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

export const ManagersChanged = graphql(`
  subscription ManagersChanged($id: Int) {
    managerChanged(id: $id) {
      id
      type
    }
  }
`);

export function useManagerChanged(
  id: number | null,
  onChange: (change: { id: number; type: string }) => void,
) {
  useLiveChange(ManagersChanged, { id }, (d) => d.managerChanged, onChange);
}
