// Holds a Pothos object type to the zod answer it serves (schema/<module>/answers.ts): every answer
// shape is written once in zod, REST and OpenAPI take it as is, and GraphQL types are checked
// against it here, so a field added to one and not the other fails a test instead of drifting.
import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { z } from 'zod';

export interface DriftOptions {
  /** Answer fields GraphQL leaves out on purpose (e.g. REST's comma-separated copies), with why. */
  restOnly?: Record<string, string>;
  /** GraphQL fields computed for GraphQL alone (resolvers with arguments, links), with why. */
  graphqlOnly?: Record<string, string>;
  /** Nested objects: options by field path ('billsParsed', 'manager'). */
  nested?: Record<string, DriftOptions>;
}

type AnyZod = z.ZodType & { _zod: { def: { type: string; [k: string]: unknown } } };

interface Unwrapped {
  schema: AnyZod;
  nullable: boolean;
}

// Nullable, optional, default and described wrappers say nothing about the shape: peel them.
function unwrap(schema: AnyZod): Unwrapped {
  let s = schema;
  let nullable = false;
  for (;;) {
    const def = s._zod.def;
    if (def.type === 'nullable' || def.type === 'optional') {
      nullable = true;
      s = def.innerType as AnyZod;
    } else if (def.type === 'default' || def.type === 'readonly' || def.type === 'catch') {
      s = def.innerType as AnyZod;
    } else if (def.type === 'pipe') {
      s = def.out as AnyZod;
    } else if (def.type === 'lazy') {
      s = (def.getter as () => AnyZod)();
    } else return { schema: s, nullable };
  }
}

function scalarOf(schema: AnyZod): string {
  const def = schema._zod.def;
  if (def.type === 'number') return (schema as unknown as { isInt?: boolean }).isInt ? 'Int' : 'Float';
  if (def.type === 'string') return 'String';
  if (def.type === 'boolean') return 'Boolean';
  if (def.type === 'date') return 'DateTime';
  return def.type;
}

const GRAPHQL_SCALARS: Record<string, readonly string[]> = {
  Int: ['Int'],
  Float: ['Float'],
  String: ['String', 'ID', 'DateTime', 'Date'],
  Boolean: ['Boolean'],
  DateTime: ['DateTime'],
};

function compareType(
  path: string,
  gql: GraphQLOutputType,
  answer: AnyZod,
  opts: DriftOptions,
  out: string[],
) {
  const { schema, nullable } = unwrap(answer);
  const gqlNullable = !isNonNullType(gql);
  if (gqlNullable !== nullable)
    out.push(
      `${path}: GraphQL is ${gqlNullable ? 'nullable' : 'non-null'}, the answer is ${nullable ? 'nullable' : 'non-null'}`,
    );
  const inner = isNonNullType(gql) ? gql.ofType : gql;
  const def = schema._zod.def;
  if (isListType(inner)) {
    if (def.type !== 'array') return void out.push(`${path}: GraphQL is a list, the answer is ${def.type}`);
    return compareType(`${path}[]`, inner.ofType, def.element as AnyZod, opts, out);
  }
  if (def.type === 'array')
    return void out.push(`${path}: the answer is a list, GraphQL is ${String(inner)}`);
  if (isObjectType(inner)) {
    if (def.type !== 'object')
      return void out.push(`${path}: GraphQL is ${inner.name}, the answer is ${def.type}`);
    return void out.push(...answerDrift(inner, schema as unknown as z.ZodObject, opts, `${path}.`));
  }
  if (isEnumType(inner)) {
    if (def.type !== 'enum')
      return void out.push(`${path}: GraphQL is enum ${inner.name}, the answer is ${def.type}`);
    const want = Object.keys(def.entries as Record<string, unknown>).sort();
    const have = inner
      .getValues()
      .map((v) => String(v.value))
      .sort();
    if (want.join() !== have.join())
      out.push(`${path}: enum ${inner.name} has ${have.join('|')}, the answer ${want.join('|')}`);
    return;
  }
  if (isScalarType(inner)) {
    const kind = scalarOf(schema);
    const fits = GRAPHQL_SCALARS[kind]?.includes(inner.name) ?? (kind === 'unknown' || kind === 'any');
    if (!fits) out.push(`${path}: GraphQL is ${inner.name}, the answer is ${kind}`);
    return;
  }
  out.push(`${path}: GraphQL type ${getNamedType(inner).name} is not compared`);
}

/**
 * The differences between a GraphQL object type and the zod object it answers with: fields one has
 * and the other lacks (unless listed with a reason), nullability, scalars, enums, lists and nested
 * objects. Empty when they agree.
 */
export function answerDrift(
  type: GraphQLObjectType,
  answer: z.ZodObject,
  opts: DriftOptions = {},
  prefix = '',
): string[] {
  const out: string[] = [];
  const shape = answer.shape as Record<string, AnyZod>;
  const fields = type.getFields() as Record<string, GraphQLField<unknown, unknown>>;
  for (const [name, field] of Object.entries(fields)) {
    if (opts.graphqlOnly?.[name]) continue;
    const sub = shape[name];
    if (!sub) {
      out.push(`${prefix}${name}: on GraphQL ${type.name}, not in the answer`);
      continue;
    }
    compareType(`${prefix}${name}`, field.type, sub, opts.nested?.[name] ?? {}, out);
  }
  for (const name of Object.keys(shape)) {
    if (fields[name] || opts.restOnly?.[name]) continue;
    out.push(`${prefix}${name}: in the answer, not on GraphQL ${type.name}`);
  }
  return out;
}
