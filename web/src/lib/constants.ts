// Business constants that the shell and the API client use.

export const REQUEST_TIMEOUT_MS = 10_000;
export const TOAST_DURATION_MS = 5_000;
export const FAILED_LOGIN_HINT_THRESHOLD = 3;
export const SIGN_IN_PASSWORD_MIN = 6;

/** Storage keys. */
export const STORAGE_KEYS = {
  session: 'auth-storage',
  accessToken: 'auth_token',
  refreshToken: 'refresh_token',
} as const;

/** Sent with every call so the server can tell the web app from other clients. */
export const CLIENT_ENVIRONMENT_HEADER = 'X-Client-Environment';
export const CLIENT_ENVIRONMENT = 'web';

/**
 * What GraphQL calls accept: JSON only, not urql's default, which also offers text/event-stream (the
 * gateway refuses GraphQL over server-sent events with 406; live data comes over the socket).
 */
export const GRAPHQL_FETCH_OPTIONS: RequestInit = {
  headers: { accept: 'application/graphql-response+json, application/json' },
};
