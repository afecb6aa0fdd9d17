// Keeps the signed-in user current over the subscription socket: a change of name or role shows at
// once; a deactivated or deleted account ends the session. The server lets ADMIN subscribe to users.
import { useEffect } from 'react';
import { useSubscription } from 'urql';
import { checkSession, updateSessionUser } from '../lib/auth';
import { graphql } from '../lib/graphql';
import { sessionStore } from '../lib/session-store';
import type { User } from '../types/api';
import { useLiveResync } from './use-live-resync';

export const SessionUserChanged = graphql(`
  subscription SessionUserChanged($id: Int) {
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

export function useLiveSessionUser(user: User | null) {
  const [result] = useSubscription({
    query: SessionUserChanged,
    variables: { id: user?.id ?? null },
    pause: user?.role !== 'ADMIN',
  });
  // The server closes a user's sockets when their role or standing changes, possibly before the
  // change itself is pushed: after any reconnect, ask again who we are.
  useLiveResync(() => {
    void checkSession();
  });
  const change = result.data?.userChanged;
  useEffect(() => {
    if (!change || change.id !== sessionStore.getState().user?.id) return;
    if (!change.user?.isActive) sessionStore.clear();
    else updateSessionUser(change.user);
  }, [change]);
}
