// The access and refresh tokens live in local storage under auth_token and refresh_token.
import type { Tokens } from '../types/api';
import { STORAGE_KEYS } from './constants';

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage unavailable (private mode, quota): the session then lasts as long as the page.
  }
}

export const tokenStorage = {
  getAccessToken: () => read(STORAGE_KEYS.accessToken),
  getRefreshToken: () => read(STORAGE_KEYS.refreshToken),
  /** Refresh tokens rotate: always store the pair the server just issued. */
  setTokens(tokens: Tokens) {
    write(STORAGE_KEYS.accessToken, tokens.accessToken);
    write(STORAGE_KEYS.refreshToken, tokens.refreshToken);
  },
  clear() {
    write(STORAGE_KEYS.accessToken, null);
    write(STORAGE_KEYS.refreshToken, null);
  },
};
