// The operations page over GraphQL (ADMIN): the overview and its live feed, and the bank's line (what
// the bank sent back that waits on a person: bank-attention.ts). The two retries and the dismissal of a
// parked event are declared once in services/operations/endpoints.ts.

import {
  BankingPatterns as BankingPatternsAnswer,
  ChangedThenPaid as ChangedThenPaidAnswer,
  DismissedParkedEvent,
  FailedJob as FailedJobAnswer,
  JobCounts as JobCountsAnswer,
  LogConsumer,
  LogHolder as LogHolderAnswer,
  OperationsOverview as OperationsOverviewAnswer,
  ParkedEvent,
  ParkedEventDismisser,
  QueueOverview as QueueOverviewAnswer,
  RapidBankingChanges as RapidBankingChangesAnswer,
} from '../../../../schema/operations/answers.js';
import { BankAttention as BankAttentionAnswer } from '../../../../schema/payments/attention-answers.js';
import { authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { operationsBankAttention } from '../../bank-attention.js';
import {
  type ConsumerOverview,
  type DismissedEventView,
  type FailedJob,
  type JobCounts,
  type LogHolder,
  type OperationsOverview,
  operationsOverview,
  type ParkedEventView,
  type QueueOverview,
} from '../../operations.js';
import { operationsFeed } from '../operations-feed.js';

const JobCountsRef = builder.objectRef<JobCounts>('QueueJobCounts').implement({
  fields: (t) => answerFields(t, JobCountsAnswer),
});

const FailedJobRef = builder.objectRef<FailedJob>('FailedJob').implement({
  fields: (t) => ({
    ...answerFields(t, FailedJobAnswer, { omit: ['failedReason'], scalars: { failedAt: 'DateTime' } }),
    failedReason: t.exposeString('failedReason', { description: 'Shortened; job data is never shown.' }),
  }),
});

const QueueRef = builder.objectRef<QueueOverview>('QueueOverview').implement({
  fields: (t) => ({
    ...answerFields(t, QueueOverviewAnswer, {
      omit: ['available', 'failedJobs'],
      refs: { counts: JobCountsRef },
    }),
    available: t.exposeBoolean('available', { description: 'False when Redis did not answer in time.' }),
    failedJobs: t.field({
      type: [FailedJobRef],
      description: 'Newest first, at most 20.',
      resolve: (q) => q.failedJobs,
    }),
  }),
});

const ParkedRef = builder.objectRef<ParkedEventView>('ParkedEvent').implement({
  fields: (t) => answerFields(t, ParkedEvent, { scalars: { parkedAt: 'DateTime' } }),
});

const DismisserRef = builder
  .objectRef<NonNullable<DismissedEventView['dismissedBy']>>('ParkedEventDismisser')
  .implement({ fields: (t) => answerFields(t, ParkedEventDismisser) });

const DismissedRef = builder.objectRef<DismissedEventView>('DismissedParkedEvent').implement({
  description: 'A parked event an ADMIN set aside: on record, no longer counted as parked.',
  fields: (t) => ({
    ...answerFields(t, DismissedParkedEvent, {
      omit: ['dismissedBy'],
      scalars: { parkedAt: 'DateTime', dismissedAt: 'DateTime' },
    }),
    dismissedBy: t.field({
      type: DismisserRef,
      nullable: true,
      description: 'Null only for a dismissal recorded without a user',
      resolve: (p) => p.dismissedBy,
    }),
  }),
});

const ConsumerKind = builder.enumType('ConsumerKind', {
  values: { PROJECTION: { value: 'projection' }, PROCESS_MANAGER: { value: 'process-manager' } } as const,
});

const ConsumerRef = builder.objectRef<ConsumerOverview>('LogConsumer').implement({
  description: 'A projection or process manager reading the event log.',
  fields: (t) => ({
    ...answerFields(t, LogConsumer, {
      omit: ['lagSeconds', 'parked', 'dismissed'],
      refs: { kind: ConsumerKind },
      scalars: { updatedAt: 'DateTime' },
    }),
    lagSeconds: t.exposeFloat('lagSeconds', {
      nullable: true,
      description: 'Age of the oldest committed event not applied yet; 0 when caught up.',
    }),
    parked: t.field({
      type: [ParkedRef],
      description: 'Parked and not dismissed.',
      resolve: (c) => c.parked,
    }),
    dismissed: t.field({
      type: [DismissedRef],
      description: 'Dismissed by an ADMIN, newest first.',
      resolve: (c) => c.dismissed,
    }),
  }),
});

export const LogHolderRef = builder.objectRef<LogHolder>('LogHolder').implement({
  description: 'The open transaction that keeps readers of the log from moving on.',
  fields: (t) => ({
    ...answerFields(t, LogHolderAnswer, { omit: ['query'] }),
    query: t.exposeString('query', { description: 'The head of its last statement.' }),
  }),
});

const RedisStatus = builder.enumType('RedisStatus', {
  values: { UP: { value: 'up' }, DOWN: { value: 'down' } },
});

type Patterns = NonNullable<OperationsOverview['bankingPatterns']>;

const RapidChangesRef = builder.objectRef<Patterns['rapidChanges'][number]>('RapidBankingChanges').implement({
  description: 'One user changed the bank details of more vendors within an hour than the threshold.',
  fields: (t) =>
    answerFields(t, RapidBankingChangesAnswer, { scalars: { from: 'DateTime', to: 'DateTime' } }),
});

const ChangedThenPaidRef = builder
  .objectRef<Patterns['changedThenPaid'][number]>('BankingChangedThenPaid')
  .implement({
    description: 'A vendor’s bank details went live and a payment file paid the vendor within a day.',
    fields: (t) =>
      answerFields(t, ChangedThenPaidAnswer, {
        scalars: {
          changedAt: 'DateTime',
          liveAt: 'DateTime',
          paidAt: 'DateTime',
          bankUploadedAt: 'DateTime',
        },
      }),
  });

const BankingPatternsRef = builder.objectRef<Patterns>('BankingPatterns').implement({
  description: 'Unusual patterns in bank detail changes over the last lookbackDays.',
  fields: (t) =>
    answerFields(t, BankingPatternsAnswer, {
      refs: { rapidChanges: RapidChangesRef, changedThenPaid: ChangedThenPaidRef },
    }),
});

const OverviewRef = builder.objectRef<OperationsOverview>('OperationsOverview').implement({
  fields: (t) =>
    answerFields(t, OperationsOverviewAnswer, {
      refs: {
        redis: RedisStatus,
        queues: QueueRef,
        consumers: ConsumerRef,
        logHolder: LogHolderRef,
        bankingPatterns: BankingPatternsRef,
      },
      scalars: { generatedAt: 'DateTime' },
    }),
});

builder.queryField('operations', (t) =>
  t.field({
    type: OverviewRef,
    description: 'Queues, consumers of the log and what holds the log back (ADMIN).',
    resolve: (_, __, ctx) => run(() => operationsOverview(ctx.app, ctx.actor)),
  }),
);

builder.subscriptionField('operationsChanged', (t) =>
  t.field({
    type: OverviewRef,
    description: 'The operations overview, pushed when it changes (checked every 2 s while subscribed).',
    authScopes: { permission: 'operations.read' },
    subscribe: (_, __, ctx) => operationsFeed(ctx.app).subscribe(),
    resolve: (overview, _, ctx) => {
      authorize(ctx.actor, 'operations.read');
      return overview;
    },
  }),
);

const BankAttentionRef = builder
  .objectRef<NonNullable<Awaited<ReturnType<typeof operationsBankAttention>>>>('BankAttention')
  .implement({
    description:
      'What the bank sent back that waits on a person, over the last lookbackDays: open and overdue notifications of change, parked entries, returns.',
    fields: (t) => answerFields(t, BankAttentionAnswer),
  });

builder.queryField('bankAttention', (t) =>
  t.field({
    type: BankAttentionRef,
    nullable: true,
    description:
      'The operations page’s line on the bank (ADMIN); null when the read models could not be read.',
    resolve: (_, __, ctx) => run(() => operationsBankAttention(ctx.app, ctx.actor)),
  }),
);
