// Typed GraphQL documents over the committed schema (schema/schema.graphql), with no codegen step:
// `npx gql.tada generate output --tsconfig web/tsconfig.json` refreshes graphql-env.d.ts.
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from '../graphql-env.d.ts';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; ID: string };
}>();

export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
export { readFragment } from 'gql.tada';
