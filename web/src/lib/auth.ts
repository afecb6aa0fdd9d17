// Session actions and hooks: check the session on load, sign in, sign out.
import { useSyncExternalStore } from 'react';
import type { AuthResult, User } from '../types/api';
import { api } from './api-client';
import { ApiError, LOGIN_MESSAGES } from './errors';
import { type SessionState, sessionStore } from './session-store';
import { tokenStorage } from './token-storage';

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.getState, sessionStore.getState);
}

/** On load: with a stored token, ask the server who we are; a 401 there ends the session. */
export async function checkSession(): Promise<void> {
  if (!tokenStorage.getAccessToken() && !tokenStorage.getRefreshToken()) {
    sessionStore.clear();
    return;
  }
  try {
    const { data } = await api.get<User>('/api/auth/me', { fallbackMessage: 'Failed to fetch user' });
    if (data) sessionStore.setUser(data);
    else sessionStore.clear();
  } catch (err) {
    if (err instanceof ApiError && err.status !== null && err.status < 500) sessionStore.clear();
    // Server unreachable or failing: keep the persisted user; the next call will tell.
    else sessionStore.finishLoading();
  }
}

/** Signs in; rejects with an ApiError (or 'Login failed' for an answer without success or tokens). */
export async function login(email: string, password: string): Promise<User> {
  const body = await api.post<AuthResult>('/api/auth/login', { email, password }, { skipAuthRefresh: true });
  const result = body.data;
  if (!body.success || !result?.tokens?.accessToken || !result.tokens.refreshToken || !result.user) {
    throw new Error(LOGIN_MESSAGES.unsuccessful);
  }
  tokenStorage.setTokens(result.tokens);
  sessionStore.setUser(result.user);
  return result.user;
}

/** Signs out: revokes the refresh token on the server (best effort), then ends the local session. */
export async function logout(): Promise<void> {
  const refreshToken = tokenStorage.getRefreshToken();
  try {
    if (tokenStorage.getAccessToken() || refreshToken) {
      await api.post('/api/auth/logout', refreshToken ? { refreshToken } : {}, { timeoutMs: 5000 });
    }
  } catch {
    // The local session ends anyway.
  } finally {
    sessionStore.clear();
  }
}

/** Replaces the signed-in user's details (e.g. after a live update from the server). */
export function updateSessionUser(user: User) {
  if (sessionStore.getState().user?.id === user.id) sessionStore.setUser(user);
}

/** 'First Last', or the e-mail when there is no full name. */
export function displayName(user: Pick<User, 'firstName' | 'lastName' | 'email'>): string {
  const first = user.firstName?.trim();
  const last = user.lastName?.trim();
  return first && last ? `${first} ${last}` : user.email;
}
