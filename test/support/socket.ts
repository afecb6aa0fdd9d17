// A graphql-ws client on the test gateway's socket, signed in with `token`, that does not retry (a
// test waits for a close or an error rather than a reconnect). Options add to or replace these.
import { type Client, type ClientOptions, createClient } from 'graphql-ws';
import WebSocket from 'ws';

export function socketClient(base: string, token: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    url: `${base.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
    retryAttempts: 0,
    ...options,
  });
}
