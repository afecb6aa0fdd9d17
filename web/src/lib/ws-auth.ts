// Authentication of the graphql-ws connection. The token goes in connectionParams when the socket
// (re)connects; a close with 4401 or 4403 means the server refused it, so the next connection first
// refreshes the token (unless another call already has) and then reconnects with the fresh one.

export const AUTH_CLOSE_CODES: readonly number[] = [4401, 4403];

export function isAuthClose(event: unknown): boolean {
  return (
    typeof event === 'object' &&
    event !== null &&
    'code' in event &&
    AUTH_CLOSE_CODES.includes(Number((event as { code: unknown }).code))
  );
}

export interface WsAuthDeps {
  getToken: () => string | null;
  refresh: () => Promise<string>;
}

export function createWsAuth({ getToken, refresh }: WsAuthDeps) {
  let rejectedToken: string | null | undefined;
  let lastSent: string | null = null;

  return {
    /** graphql-ws `connectionParams`: called on every (re)connect. */
    async connectionParams(): Promise<{ token: string | null }> {
      if (rejectedToken !== undefined) {
        const refused = rejectedToken;
        rejectedToken = undefined;
        // Refresh only if nobody has replaced the refused token in the meantime.
        if (getToken() === refused) {
          try {
            await refresh();
          } catch {
            // The session has ended (the API client sends the user to /login); connect without a token.
          }
        }
      }
      lastSent = getToken();
      return { token: lastSent };
    },
    /** graphql-ws `on.closed` listener. */
    onClosed(event: unknown) {
      if (isAuthClose(event)) rejectedToken = lastSent;
    },
  };
}
