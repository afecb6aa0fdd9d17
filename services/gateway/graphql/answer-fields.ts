// Pothos fields derived from a zod answer (schema/<module>/answers.ts): the answer is written once,
// and a GraphQL type lists only what GraphQL adds (named enums and nested types, fields with
// arguments). Scalars, nullability and lists come from the zod shape, so they cannot drift.
import type { z } from 'zod';

type AnyZod = z.ZodType & { _zod: { def: { type: string; [k: string]: unknown } } };

/** What a field's type is named in GraphQL when zod cannot say: an enum or object ref, or a scalar. */
export type FieldTypeRef = any;

export interface AnswerFieldOptions {
  /** Leave these answer fields out of GraphQL (REST-only copies), or keep only `only`. */
  omit?: readonly string[];
  only?: readonly string[];
  /** The GraphQL type of enum and object fields (and of lists of them), by field name. */
  refs?: Record<string, FieldTypeRef>;
  /** Scalar names other than String for string fields ('DateTime', 'ID'), by field name. */
  scalars?: Record<string, 'DateTime' | 'ID'>;
}

function peel(schema: AnyZod): { inner: AnyZod; nullable: boolean } {
  let s = schema;
  let nullable = false;
  for (;;) {
    const def = s._zod.def;
    if (def.type === 'nullable' || def.type === 'optional') {
      nullable = true;
      s = def.innerType as AnyZod;
    } else if (def.type === 'default' || def.type === 'readonly') s = def.innerType as AnyZod;
    else return { inner: s, nullable };
  }
}

function scalar(name: string, schema: AnyZod, opts: AnswerFieldOptions): FieldTypeRef {
  const def = schema._zod.def;
  if (opts.refs?.[name]) return opts.refs[name];
  if (def.type === 'number') return (schema as unknown as { isInt?: boolean }).isInt ? 'Int' : 'Float';
  if (def.type === 'boolean') return 'Boolean';
  if (def.type === 'string') return opts.scalars?.[name] ?? 'String';
  throw new Error(`answerFields: ${name} (${def.type}) needs a GraphQL type in refs`);
}

/**
 * The fields of a Pothos object type for every field of a zod answer: each resolves to the parent's
 * property of the same name. Spread it into `fields: (t) => ({ ...answerFields(t, Answer), … })`.
 */
export function answerFields(
  t: any,
  answer: z.ZodObject,
  opts: AnswerFieldOptions = {},
): Record<string, FieldTypeRef> {
  const fields: Record<string, FieldTypeRef> = {};
  for (const [name, schema] of Object.entries(answer.shape as Record<string, AnyZod>)) {
    if (opts.omit?.includes(name) || (opts.only && !opts.only.includes(name))) continue;
    const { inner, nullable } = peel(schema);
    const resolve = (parent: Record<string, unknown>) => parent[name];
    if (inner._zod.def.type === 'array') {
      const item = peel(inner._zod.def.element as AnyZod);
      fields[name] = t.field({
        type: [scalar(name, item.inner, opts)],
        nullable: { list: nullable, items: item.nullable },
        resolve,
      });
    } else {
      fields[name] = t.field({ type: scalar(name, inner, opts), nullable, resolve });
    }
  }
  return fields;
}
