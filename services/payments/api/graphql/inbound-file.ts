// The files the bank sent back (returns, notifications of change), as staff read them: each with its
// counts and the entries parked for a person. Derived from the REST answer (schema/payments/answers.ts).
// The upload itself stays REST (multipart): a bank's file is far above a GraphQL body's limit.
import type { z } from 'zod';
import { InboundFileRow } from '../../../../schema/payments/answers.js';
import { ParkedEntry } from '../../../../schema/payments/events.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { listInboundFiles } from '../../queries.js';

/** The answers' values are lower case: named in capitals in GraphQL, their values as REST answers them. */
const enumOf = (name: string, values: readonly string[], description?: string) =>
  builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v }])),
  });

const SourceEnum = enumOf(
  'AchInboundSource',
  InboundFileRow.shape.source.options,
  'Where the file came from: SFTP (the bank’s outbox), UPLOAD (an ADMIN in the app), CLI (the command line)',
);
const StatusEnum = enumOf(
  'AchInboundStatus',
  InboundFileRow.shape.status.options,
  'RECEIVED: read, its entries being applied; APPLIED: done; REFUSED: not a valid ACH file, nothing applied',
);
const ParkedKindEnum = enumOf('AchParkedEntryKind', ParkedEntry.shape.kind.options);

export const ParkedEntryRef = builder.objectRef<z.infer<typeof ParkedEntry>>('AchParkedEntry').implement({
  description: 'An entry of a bank file that matched no Billflow entry, kept for a person.',
  fields: (t) => answerFields(t, ParkedEntry, { refs: { kind: ParkedKindEnum } }),
});

export const AchInboundFileRef = builder
  .objectRef<z.infer<typeof InboundFileRow>>('AchInboundFile')
  .implement({
    description: 'A file the bank sent back: returns and notifications of change.',
    fields: (t) =>
      answerFields(t, InboundFileRow, {
        refs: { source: SourceEnum, status: StatusEnum, parked: ParkedEntryRef },
        scalars: { receivedAt: 'DateTime', appliedAt: 'DateTime' },
      }),
  });

builder.queryField('achInboundFiles', (t) =>
  t.field({
    type: [AchInboundFileRef],
    description: 'The files the bank sent back, newest first, at most 200 (ADMIN, MODERATOR).',
    resolve: (_, __, ctx) => run(() => listInboundFiles(ctx.app, ctx.actor)),
  }),
);
