// Live updates: the userChanged subscription (GraphQL over the shared socket). Every change calls
// `onChange`: a list refetches, a detail page patches its user, the shell updates the signed-in user.
// Shared (not in features/users) because the shell uses it too.
import { graphql } from '../lib/graphql';
import type { User } from '../types/api';
import { useLiveChange } from './use-live-change';

export const UsersChanged = graphql(`
  subscription UsersChanged($id: Int) {
    userChanged(id: $id) {
      id
      type
      user {
        id
        email
        firstName
        lastName
        role
        isActive
        createdAt
        updatedAt
      }
    }
  }
`);

export interface UserChange {
  id: number;
  type: string;
  user: User | null;
}

export function useUserChanged(id: number | null, onChange: (change: UserChange) => void, pause = false) {
  useLiveChange(UsersChanged, { id }, (d) => d.userChanged as UserChange, onChange, pause);
}
