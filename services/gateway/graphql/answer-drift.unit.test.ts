import { buildSchema, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerDrift } from './answer-drift.js';

const schema = buildSchema(`
  enum Status { PENDING APPROVED }
  type Ref { id: Int! name: String! }
  type Thing {
    id: ID!
    count: Int!
    rate: Float!
    note: String
    status: Status!
    tags: [String!]!
    ref: Ref
    extra(arg: Int): Int
  }
`);
const Thing = schema.getType('Thing') as GraphQLObjectType;

const answer = z.object({
  id: z.string(),
  count: z.number().int(),
  rate: z.number(),
  note: z.string().nullable(),
  status: z.enum(['PENDING', 'APPROVED']),
  tags: z.array(z.string()),
  ref: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  csv: z.string(),
});
const opts = { restOnly: { csv: 'REST copy' }, graphqlOnly: { extra: 'argument' } };

describe('answerDrift', () => {
  it('finds none when GraphQL serves the answer as written', () => {
    expect(answerDrift(Thing, answer, opts)).toEqual([]);
  });

  it('names a field on one side only', () => {
    expect(answerDrift(Thing, answer, { graphqlOnly: opts.graphqlOnly })).toEqual([
      'csv: in the answer, not on GraphQL Thing',
    ]);
    expect(answerDrift(Thing, answer, { restOnly: opts.restOnly })).toEqual([
      'extra: on GraphQL Thing, not in the answer',
    ]);
  });

  it('names nullability, scalar, enum, list and nested differences', () => {
    const drifted = answer.extend({
      count: z.number().int().nullable(),
      rate: z.string(),
      status: z.enum(['PENDING', 'APPROVED', 'REJECTED']),
      tags: z.string(),
      ref: z.object({ id: z.number(), name: z.string() }).nullable(),
    });
    expect(answerDrift(Thing, drifted, opts)).toEqual([
      'count: GraphQL is non-null, the answer is nullable',
      'rate: GraphQL is Float, the answer is String',
      'status: enum Status has APPROVED|PENDING, the answer APPROVED|PENDING|REJECTED',
      'tags: GraphQL is a list, the answer is string',
      'ref.id: GraphQL is Int, the answer is Float',
    ]);
  });
});
