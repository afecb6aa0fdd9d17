// The operations page over GraphQL (ADMIN): the overview, its live feed, the two retries and the
// dismissal of a parked event.

import { authorize } from '../../../auth/permissions.js';
import {
  type ConsumerOverview,
  type DismissedEventView,
  dismissParkedEvent,
  type FailedJob,
  type JobCounts,
  type LogHolder,
  type OperationsOverview,
  operationsOverview,
  type ParkedEventView,
  type QueueOverview,
  retryFailedJob,
  retryParkedEvent,
} from '../../../operations/operations.js';
import { operationsFeed } from '../../operations-feed.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';

const JobCountsRef = builder.objectRef<JobCounts>('QueueJobCounts').implement({
  fields: (t) => ({
    waiting: t.exposeInt('waiting'),
    active: t.exposeInt('active'),
    delayed: t.exposeInt('delayed'),
    failed: t.exposeInt('failed'),
    completed: t.exposeInt('completed'),
    paused: t.exposeInt('paused'),
  }),
});

const FailedJobRef = builder.objectRef<FailedJob>('FailedJob').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    failedReason: t.exposeString('failedReason', { description: 'Shortened; job data is never shown.' }),
    attemptsMade: t.exposeInt('attemptsMade'),
    failedAt: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.failedAt }),
  }),
});

const QueueRef = builder.objectRef<QueueOverview>('QueueOverview').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    available: t.exposeBoolean('available', { description: 'False when Redis did not answer in time.' }),
    counts: t.field({ type: JobCountsRef, nullable: true, resolve: (q) => q.counts }),
    failedJobs: t.field({
      type: [FailedJobRef],
      description: 'Newest first, at most 20.',
      resolve: (q) => q.failedJobs,
    }),
  }),
});

const ParkedRef = builder.objectRef<ParkedEventView>('ParkedEvent').implement({
  fields: (t) => ({
    eventId: t.exposeString('eventId'),
    eventType: t.exposeString('eventType'),
    position: t.exposeString('position'),
    streamId: t.exposeString('streamId'),
    error: t.exposeString('error'),
    attempts: t.exposeInt('attempts'),
    parkedAt: t.field({ type: 'DateTime', resolve: (p) => p.parkedAt }),
    retryRequested: t.exposeBoolean('retryRequested'),
  }),
});

const DismisserRef = builder
  .objectRef<NonNullable<DismissedEventView['dismissedBy']>>('ParkedEventDismisser')
  .implement({ fields: (t) => ({ id: t.exposeInt('id'), name: t.exposeString('name') }) });

const DismissedRef = builder.objectRef<DismissedEventView>('DismissedParkedEvent').implement({
  description: 'A parked event an ADMIN set aside: on record, no longer counted as parked.',
  fields: (t) => ({
    eventId: t.exposeString('eventId'),
    eventType: t.exposeString('eventType'),
    position: t.exposeString('position'),
    streamId: t.exposeString('streamId'),
    error: t.exposeString('error'),
    attempts: t.exposeInt('attempts'),
    parkedAt: t.field({ type: 'DateTime', resolve: (p) => p.parkedAt }),
    dismissedAt: t.field({ type: 'DateTime', resolve: (p) => p.dismissedAt }),
    dismissedBy: t.field({
      type: DismisserRef,
      nullable: true,
      description: 'Null only for a dismissal recorded without a user',
      resolve: (p) => p.dismissedBy,
    }),
    reason: t.exposeString('reason'),
  }),
});

const ConsumerKind = builder.enumType('ConsumerKind', {
  values: { PROJECTION: { value: 'projection' }, PROCESS_MANAGER: { value: 'process-manager' } } as const,
});

const ConsumerRef = builder.objectRef<ConsumerOverview>('LogConsumer').implement({
  description: 'A projection or process manager reading the event log.',
  fields: (t) => ({
    name: t.exposeString('name'),
    kind: t.field({ type: ConsumerKind, resolve: (c) => c.kind }),
    checkpoint: t.exposeString('checkpoint', { nullable: true }),
    lagSeconds: t.exposeFloat('lagSeconds', {
      nullable: true,
      description: 'Age of the oldest committed event not applied yet; 0 when caught up.',
    }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.updatedAt }),
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
    pid: t.exposeInt('pid'),
    ageSeconds: t.exposeFloat('ageSeconds'),
    query: t.exposeString('query', { description: 'The head of its last statement.' }),
    state: t.exposeString('state'),
  }),
});

const RedisStatus = builder.enumType('RedisStatus', {
  values: { UP: { value: 'up' }, DOWN: { value: 'down' } },
});

const OverviewRef = builder.objectRef<OperationsOverview>('OperationsOverview').implement({
  fields: (t) => ({
    generatedAt: t.field({ type: 'DateTime', resolve: (o) => o.generatedAt }),
    redis: t.field({ type: RedisStatus, resolve: (o) => o.redis }),
    queues: t.field({ type: [QueueRef], resolve: (o) => o.queues }),
    consumers: t.field({ type: [ConsumerRef], resolve: (o) => o.consumers }),
    logHolder: t.field({ type: LogHolderRef, nullable: true, resolve: (o) => o.logHolder }),
  }),
});

builder.queryField('operations', (t) =>
  t.field({
    type: OverviewRef,
    description: 'Queues, consumers of the log and what holds the log back (ADMIN).',
    resolve: (_, __, ctx) => run(() => operationsOverview(ctx.app, ctx.actor)),
  }),
);

builder.mutationField('retryFailedJob', (t) =>
  t.field({
    type: 'Boolean',
    description: 'Runs a failed job again.',
    args: { queue: t.arg.string({ required: true }), jobId: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      run(async () => {
        await retryFailedJob(ctx.app, ctx.actor, args.queue, args.jobId);
        operationsFeed(ctx.app).refresh();
        return true;
      }),
  }),
);

builder.mutationField('retryParkedEvent', (t) =>
  t.field({
    type: 'Boolean',
    description: "Asks the consumer's active runner to apply a parked event again.",
    args: { consumer: t.arg.string({ required: true }), eventId: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      run(async () => {
        await retryParkedEvent(ctx.app, ctx.actor, args.consumer, args.eventId);
        operationsFeed(ctx.app).refresh();
        return true;
      }),
  }),
);

builder.mutationField('dismissParkedEvent', (t) =>
  t.field({
    type: 'Boolean',
    description: 'Sets a parked event aside, with a reason (ADMIN): kept on record, no longer counted.',
    args: {
      consumer: t.arg.string({ required: true }),
      eventId: t.arg.string({ required: true }),
      reason: t.arg.string({ required: true }),
    },
    resolve: (_, args, ctx) =>
      run(async () => {
        await dismissParkedEvent(ctx.app, ctx.actor, args.consumer, args.eventId, { reason: args.reason });
        operationsFeed(ctx.app).refresh();
        return true;
      }),
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
