// The Pothos builder, and nothing else (Pothos app layout): types live one per file beside it.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { AppServices } from '../../app/context.js';
import { type Actor, can, type Permission } from '../../auth/permissions.js';
import type { LiveBus } from '../live.js';

export interface GraphQLContext {
  app: AppServices;
  actor: Actor | null;
  live: LiveBus;
  ip: string | null;
  /** The address the request came to (`http://host:port`): the OAuth callback must be on it. */
  origin?: string | null;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { signedIn: boolean; permission: Permission };
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string } };
}>({
  plugins: [ScopeAuthPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Subscriptions are checked when they start, with the same permission table as everything else.
    authorizeOnSubscribe: true,
    authScopes: async (ctx) => ({
      signedIn: ctx.actor !== null,
      permission: (perm) => can(ctx.actor, perm),
    }),
  },
});

builder.scalarType('DateTime', {
  description: 'ISO-8601 date and time',
  serialize: (v) => v,
  parseValue: (v) => String(v),
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
