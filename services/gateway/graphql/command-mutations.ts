// The GraphQL mutation of each declared command (services/app/endpoints.ts), and the input objects
// the declarations name: the permission checked first, the use case's errors mapped (errors.ts).
// Idempotency (extensions.idempotencyKey) is the server's, the same for every mutation.
import type { AnyEndpoint, GraphQLArg, GraphQLInputDeclaration } from '../../app/endpoints.js';
import { authorize } from '../../auth/permissions.js';
import { builder } from './builder.js';
import { run } from './errors.js';

interface TypeShape {
  name: string;
  required: boolean;
  /** A list, and whether its items are required. */
  list: null | { items: boolean };
}

/** `[String!]!` → String, a required list of required items. */
export function parseTypeName(typeName: string): TypeShape {
  const required = typeName.endsWith('!');
  const bare = required ? typeName.slice(0, -1) : typeName;
  const list = /^\[(\w+)(!?)\]$/.exec(bare);
  if (list) return { name: list[1], required, list: { items: list[2] === '!' } };
  if (!/^\w+$/.test(bare)) throw new Error(`Not a GraphQL type name: ${typeName}`);
  return { name: bare, required, list: null };
}

const shapeOf = (arg: GraphQLArg) => (typeof arg === 'string' ? { type: arg } : arg);

/** Pothos input options for a declared argument or input field (named types are looked up by name). */
function inputOptions(arg: GraphQLArg) {
  const { type, description } = shapeOf(arg);
  const shape = parseTypeName(type);
  return {
    type: (shape.list ? [shape.name] : shape.name) as never,
    required: (shape.list ? { list: shape.required, items: shape.list.items } : shape.required) as never,
    ...(description ? { description } : {}),
  };
}

/** Builds the declared input objects; call before the mutations that name them. */
export function registerGraphQLInputs(inputs: readonly GraphQLInputDeclaration[]) {
  for (const input of inputs)
    builder.inputType(input.name, {
      ...(input.description ? { description: input.description } : {}),
      fields: (t) =>
        Object.fromEntries(
          Object.entries(input.fields).map(([name, arg]) => [name, t.field(inputOptions(arg))]),
        ),
    });
}

export function registerCommandMutations(endpoints: readonly AnyEndpoint[]) {
  for (const endpoint of endpoints) {
    const { graphql } = endpoint;
    if (!graphql) continue;
    const returns = parseTypeName(graphql.returns);
    builder.mutationField(graphql.name, (t) =>
      t.field({
        type: (returns.list ? [returns.name] : returns.name) as never,
        nullable: (returns.list
          ? { list: !returns.required, items: !returns.list.items }
          : !returns.required) as never,
        ...(graphql.description ? { description: graphql.description } : {}),
        args: Object.fromEntries(
          Object.entries(graphql.args).map(([name, arg]) => [name, t.arg(inputOptions(arg))]),
        ),
        resolve: (_root, args, ctx) =>
          run(async () => {
            if (endpoint.permission !== 'public') authorize(ctx.actor, endpoint.permission);
            const result = await endpoint.run(
              ctx.app,
              ctx.actor,
              graphql.input(args as Record<string, unknown>),
              { ip: ctx.ip, origin: ctx.origin ?? null },
            );
            return (graphql.answer ? graphql.answer(result) : result) as never;
          }),
      }),
    );
  }
}
