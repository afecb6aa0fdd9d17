// The signed-in user, shared by React (useSyncExternalStore) and the API client. The user and the
// authenticated flag persist under 'auth-storage' as { state: { user, isAuthenticated }, version }.
import type { User } from '../types/api';
import { STORAGE_KEYS } from './constants';
import { tokenStorage } from './token-storage';

export interface SessionState {
  user: User | null;
  isAuthenticated: boolean;
  /** True from page load until the current-user call has answered. */
  isLoading: boolean;
}

interface Persisted {
  state: { user: User | null; isAuthenticated: boolean };
  version: number;
}

function readPersisted(): Persisted['state'] {
  try {
    const raw = window.localStorage.getItem(STORAGE_KEYS.session);
    if (!raw) return { user: null, isAuthenticated: false };
    const parsed = JSON.parse(raw) as Partial<Persisted>;
    const user = parsed.state?.user ?? null;
    return { user, isAuthenticated: Boolean(parsed.state?.isAuthenticated && user) };
  } catch {
    return { user: null, isAuthenticated: false };
  }
}

function persist(value: Persisted['state']) {
  try {
    if (!value.user) window.localStorage.removeItem(STORAGE_KEYS.session);
    else
      window.localStorage.setItem(
        STORAGE_KEYS.session,
        JSON.stringify({ state: value, version: 0 } satisfies Persisted),
      );
  } catch {
    // Storage unavailable: keep the session in memory only.
  }
}

let state: SessionState = { ...readPersisted(), isLoading: true };
const listeners = new Set<() => void>();

function set(next: SessionState) {
  state = next;
  persist({ user: next.user, isAuthenticated: next.isAuthenticated });
  for (const listener of listeners) listener();
}

export const sessionStore = {
  getState: (): SessionState => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
  /** A signed-in (or re-checked) user. */
  setUser(user: User) {
    set({ user, isAuthenticated: true, isLoading: false });
  },
  /** Ends the session in this browser: the user, the flag and both tokens. */
  clear() {
    tokenStorage.clear();
    set({ user: null, isAuthenticated: false, isLoading: false });
  },
  /** A session check is under way (page load). */
  startLoading() {
    if (!state.isLoading) set({ ...state, isLoading: true });
  },
  /** The session check finished without changing the user (e.g. the server could not be reached). */
  finishLoading() {
    if (state.isLoading) set({ ...state, isLoading: false });
  },
  /** Re-reads storage; for tests and for other tabs' changes. */
  reload() {
    set({ ...readPersisted(), isLoading: state.isLoading });
  },
};
