// Keeps the signed-in user current over the subscription socket: a change of name or role shows at
// once; a deactivated or deleted account ends the session. The server lets ADMIN subscribe to users.
import { checkSession, updateSessionUser } from '../lib/auth';
import { sessionStore } from '../lib/session-store';
import type { User } from '../types/api';
import { useLiveResync } from './use-live-resync';
import { useUserChanged } from './use-user-changed';

export function useLiveSessionUser(user: User | null) {
  useUserChanged(
    user?.id ?? null,
    (change) => {
      if (change.id !== sessionStore.getState().user?.id) return;
      if (!change.user?.isActive) sessionStore.clear();
      else updateSessionUser(change.user);
    },
    user?.role !== 'ADMIN',
  );
  // The server closes a user's sockets when their role or standing changes, possibly before the
  // change itself is pushed: after any reconnect, ask again who we are.
  useLiveResync(() => {
    void checkSession();
  });
}
