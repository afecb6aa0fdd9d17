// The page's GraphQL socket (graphql-ws) proxied through the test: to watch what the app and the
// gateway say, to hold a message back, or to drop the connection as a gateway restart would.
//
// Usage:
//   const socket = await proxyGraphQLSocket(page, {
//     fromPage: (msg, forward) => (msg.type === 'subscribe' ? held.push(forward) : forward()),
//     fromServer: (msg) => { if (msg.type === 'connection_ack') acks += 1; },
//   });
//   await socket.dropToPage();
//   await expect.poll(() => socket.isLive('managerChanged'), { timeout: 20_000 }).toBe(true);
import type { Page } from 'playwright-core';

/** A graphql-ws message as sent (type, id, payload). */
export interface SocketMessage {
  type: string;
  id?: string;
  payload?: any;
}

export interface SocketWatch {
  /** Each message the app sends; it goes on when `forward` is called (by default at once). */
  fromPage?(message: SocketMessage, forward: () => void): void;
  /** Each message the gateway sends, before the app gets it. */
  fromServer?(message: SocketMessage): void;
  /** The gateway closed the socket (4403: session or token ended). */
  serverClosed?(code: number): void;
}

/** Must be set up before the page opens its socket (before signing in). */
export async function proxyGraphQLSocket(page: Page, watch: SocketWatch = {}) {
  let drop: (() => Promise<void>) | null = null;
  // The newest socket's subscriptions by id (their queries), and the queries the gateway said are live.
  let newest = { asked: new Map<string, string>(), live: [] as string[] };
  await page.routeWebSocket(/\/graphql$/, (ws) => {
    const server = ws.connectToServer();
    const socket = { asked: new Map<string, string>(), live: [] as string[] };
    newest = socket;
    ws.onMessage((message) => {
      const msg: SocketMessage = JSON.parse(String(message));
      if (msg.type === 'subscribe' && msg.id) socket.asked.set(msg.id, String(msg.payload?.query));
      const forward = () => server.send(message);
      if (watch.fromPage) watch.fromPage(msg, forward);
      else forward();
    });
    server.onMessage((message) => {
      const msg: SocketMessage = JSON.parse(String(message));
      const query = msg.id ? socket.asked.get(msg.id) : undefined;
      if (query !== undefined && msg.payload?.extensions?.subscribed === true) socket.live.push(query);
      watch.fromServer?.(msg);
      ws.send(message);
    });
    server.onClose((code, reason) => {
      watch.serverClosed?.(code ?? 0);
      void ws.close({ code, reason });
    });
    ws.onClose((code, reason) => void server.close({ code, reason }));
    drop = () => ws.close({ code: 1012, reason: 'Service Restart' });
  });
  return {
    /** Closes the page's side as a restarting gateway does (1012); the app reconnects. */
    dropToPage: () => drop?.() ?? Promise.resolve(),
    /**
     * Whether, on the page's newest socket, the gateway has said that a subscription naming `field`
     * is live (services/gateway/subscribed-ack.ts): from then on its changes reach the page.
     */
    isLive: (field: string) => newest.live.some((query) => query.includes(field)),
  };
}
