// The web reads and writes through POST /graphql: browser tests find, hold or answer one operation by
// its name, as they did a REST path.
//
// Usage:
//   await routeOperation(page, 'Users', (route) => route.fulfill(graphqlFailure('Database unavailable', 'UNAVAILABLE')));
//   page.on('request', (r) => { if (isOperation(r, 'RegisterUser')) calls.push(r); });
//   variablesOf(calls[0])  // { input: { email, … } }
import type { Page, Request, Route } from 'playwright-core';

interface GraphQLBody {
  operationName?: string;
  variables?: Record<string, unknown>;
}

function bodyOf(request: Request): GraphQLBody | null {
  if (request.method() !== 'POST' || new URL(request.url()).pathname !== '/graphql') return null;
  try {
    return request.postDataJSON() as GraphQLBody;
  } catch {
    return null;
  }
}

/** Whether the request is this GraphQL operation. */
export function isOperation(request: Request, name: string): boolean {
  return bodyOf(request)?.operationName === name;
}

export function variablesOf(request: Request): Record<string, unknown> {
  return bodyOf(request)?.variables ?? {};
}

/** Handles the requests of one operation; every other request goes on as if not routed. */
export async function routeOperation(
  page: Page,
  name: string,
  handler: (route: Route, variables: Record<string, unknown>) => unknown,
): Promise<() => Promise<void>> {
  const matcher = (route: Route) => {
    const body = bodyOf(route.request());
    if (body?.operationName !== name) return route.fallback();
    return handler(route, body.variables ?? {});
  };
  await page.route('**/graphql', matcher);
  return () => page.unroute('**/graphql', matcher);
}

/** A GraphQL answer with the gateway's error shape (services/gateway/graphql/errors.ts). */
export function graphqlFailure(message: string, code: string) {
  return {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ data: null, errors: [{ message, extensions: { code } }] }),
  };
}

/** A GraphQL answer with this data. */
export function graphqlData(data: unknown) {
  return { status: 200, contentType: 'application/json', body: JSON.stringify({ data }) };
}
