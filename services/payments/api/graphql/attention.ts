// What the bank sent back that waits on a person: open notifications of change (overdue ones flagged)
// and recent returns, each naming its company, approval and vendor (needing-attention.ts).
import {
  OpenCorrection,
  PaymentEntriesNeedingAttention,
  RecentReturn,
} from '../../../../schema/payments/attention-answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { paymentEntriesNeedingAttention } from './needing-attention.js';

type Answer = Awaited<ReturnType<typeof paymentEntriesNeedingAttention>>;

const OpenCorrectionRef = builder
  .objectRef<Answer['corrections'][number]>('OpenPaymentCorrection')
  .implement({
    description:
      'A notification of change whose vendor’s bank details have not changed since it arrived (Nacha: six banking days).',
    fields: (t) => answerFields(t, OpenCorrection, { scalars: { receivedAt: 'DateTime' } }),
  });

const RecentReturnRef = builder.objectRef<Answer['returns'][number]>('RecentPaymentReturn').implement({
  description: 'An entry the bank returned: the vendor was not paid.',
  fields: (t) => answerFields(t, RecentReturn, { scalars: { receivedAt: 'DateTime' } }),
});

const AttentionRef = builder.objectRef<Answer>('PaymentEntriesNeedingAttention').implement({
  fields: (t) =>
    answerFields(t, PaymentEntriesNeedingAttention, {
      refs: { corrections: OpenCorrectionRef, returns: RecentReturnRef },
    }),
});

builder.queryField('paymentEntriesNeedingAttention', (t) =>
  t.field({
    type: AttentionRef,
    description:
      'Open notifications of change and the returns of the last 30 days, of the companies the caller works on (ADMIN, MODERATOR).',
    resolve: (_, __, ctx) => run(() => paymentEntriesNeedingAttention(ctx.app, ctx.actor)),
  }),
);
