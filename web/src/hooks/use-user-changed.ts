// Live updates: the userChanged subscription (GraphQL over the shared socket). Every change calls
// `onChange`: a list refetches, a detail page patches its user, the shell updates the signed-in user.
// Shared (not in features/users) because the shell uses it too.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import type { User } from '../types/api';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

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
  const [result, resubscribe] = useSubscription({ query: UsersChanged, variables: { id }, pause });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.userChanged;
  useEffect(() => {
    if (change) latest.current(change as UserChange);
  }, [change]);
}
