// Business constants of spec 1 §9 that the shell and the API client use.

export const REQUEST_TIMEOUT_MS = 10_000;
export const TOAST_DURATION_MS = 5_000;
export const FAILED_LOGIN_HINT_THRESHOLD = 3;
export const SIGN_IN_PASSWORD_MIN = 6;

/** Storage keys (spec 1 §4, §9). */
export const STORAGE_KEYS = {
  session: 'auth-storage',
  accessToken: 'auth_token',
  refreshToken: 'refresh_token',
} as const;

/** Sent with every call so the server can tell the web app from other clients. */
export const CLIENT_ENVIRONMENT_HEADER = 'X-Client-Environment';
export const CLIENT_ENVIRONMENT = 'web';
