import SchemaBuilder from '@pothos/core';
import { type GraphQLObjectType, graphql, printType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerDrift } from './answer-drift.js';
import { answerFields } from './answer-fields.js';

const Ref = z.object({ id: z.number().int(), name: z.string() });
const Thing = z.object({
  id: z.number().int(),
  rate: z.number(),
  note: z.string().nullable(),
  active: z.boolean(),
  status: z.enum(['PENDING', 'APPROVED']),
  tags: z.array(z.string()),
  refs: z.array(Ref).nullable(),
  owner: Ref.nullable(),
  createdAt: z.string(),
  csv: z.string(),
});
type ThingAnswer = z.infer<typeof Thing>;

const sample: ThingAnswer = {
  id: 7,
  rate: 12.5,
  note: null,
  active: true,
  status: 'APPROVED',
  tags: ['a', 'b'],
  refs: [{ id: 1, name: 'One' }],
  owner: null,
  createdAt: '2026-11-27T10:00:00.000Z',
  csv: 'a,b',
};

// The scope-auth plugin's typing (global) asks every builder for its options; these use no plugin.
const options = { defaultFieldNullability: false } as never;

function schemaFor() {
  const builder = new SchemaBuilder<{
    DefaultFieldNullability: false;
    Scalars: { DateTime: { Input: string; Output: string } };
  }>(options);
  builder.scalarType('DateTime', { serialize: (v) => v, parseValue: (v) => String(v) });
  const Status = builder.enumType('Status', { values: ['PENDING', 'APPROVED'] as const });
  const RefType = builder
    .objectRef<z.infer<typeof Ref>>('Ref')
    .implement({ fields: (t) => answerFields(t, Ref) });
  builder.objectRef<ThingAnswer>('Thing').implement({
    fields: (t) => ({
      ...answerFields(t, Thing, {
        omit: ['csv'],
        refs: { status: Status, refs: RefType, owner: RefType },
        scalars: { createdAt: 'DateTime' },
      }),
      label: t.string({ resolve: (x) => `#${x.id}` }),
    }),
  });
  builder.queryType({
    fields: (t) => ({ thing: t.field({ type: 'Thing' as never, resolve: () => sample as never }) }),
  });
  return builder.toSchema();
}

describe('answerFields', () => {
  it('derives scalars, nullability, lists, enums and nested types from the zod answer', () => {
    const type = schemaFor().getType('Thing') as GraphQLObjectType;
    expect(printType(type)).toBe(
      [
        'type Thing {',
        '  active: Boolean!',
        '  createdAt: DateTime!',
        '  id: Int!',
        '  label: String!',
        '  note: String',
        '  owner: Ref',
        '  rate: Float!',
        '  refs: [Ref!]',
        '  status: Status!',
        '  tags: [String!]!',
        '}',
      ].join('\n'),
    );
    expect(
      answerDrift(type, Thing, { restOnly: { csv: 'REST' }, graphqlOnly: { label: 'GraphQL' } }),
    ).toEqual([]);
  });

  it('resolves each field to the answer property of the same name', async () => {
    const result = await graphql({
      schema: schemaFor(),
      source: '{ thing { id rate note active status tags refs { id name } owner { id } createdAt label } }',
    });
    expect(result.errors).toBeUndefined();
    const { csv: _csv, ...served } = sample;
    expect(result.data?.thing).toEqual({ ...served, label: '#7' });
  });

  it('refuses an enum or object field with no GraphQL type named', () => {
    const builder = new SchemaBuilder<{ DefaultFieldNullability: false }>(options);
    builder.objectRef<ThingAnswer>('Thing').implement({ fields: (t) => answerFields(t, Thing) });
    builder.queryType({ fields: (t) => ({ ok: t.boolean({ resolve: () => true }) }) });
    expect(() => builder.toSchema()).toThrow(/status \(enum\) needs a GraphQL type in refs/);
  });
});
