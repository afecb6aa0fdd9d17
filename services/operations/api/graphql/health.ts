// System health for the dashboard card (ADMIN). The types' fields come from the answers
// (schema/operations/answers.ts).
import {
  ServiceStatus as ServiceStatusAnswer,
  SystemHealth as SystemHealthAnswer,
  Usage as UsageAnswer,
} from '../../../../schema/operations/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { detailedHealth, type SystemHealth, type Usage } from '../../health.js';
import { LogHolderRef } from './operations.js';

const UsageRef = builder.objectRef<Usage>('Usage').implement({
  fields: (t) => answerFields(t, UsageAnswer),
});

const ServiceStatus = builder
  .objectRef<{ status: string; responseTime: number | null }>('ServiceStatus')
  .implement({
    fields: (t) => ({
      // A String in GraphQL (as the schema has always said): connected or disconnected, or the api's 'operational'.
      ...answerFields(t, ServiceStatusAnswer, { omit: ['responseTime'], refs: { status: 'String' } }),
      responseTime: t.exposeFloat('responseTime', { nullable: true, description: 'milliseconds' }),
    }),
  });

const HealthRef = builder.objectRef<SystemHealth>('SystemHealth').implement({
  fields: (t) => ({
    ...answerFields(t, SystemHealthAnswer, {
      omit: ['uptime', 'parkedEvents', 'logHolder'],
      // status: a String in GraphQL (as the schema has always said), one of the answer's statuses.
      refs: {
        status: 'String',
        database: ServiceStatus,
        redis: ServiceStatus,
        api: ServiceStatus,
        memory: UsageRef,
        disk: UsageRef,
      },
      scalars: { timestamp: 'DateTime' },
    }),
    uptime: t.exposeInt('uptime', { description: 'seconds' }),
    parkedEvents: t.exposeInt('parkedEvents', {
      nullable: true,
      description: 'Events projections and process managers set aside (operations page); null when unknown.',
    }),
    logHolder: t.field({
      type: LogHolderRef,
      nullable: true,
      description: 'The open append transaction that holds the event log back, if any.',
      resolve: (h) => h.logHolder,
    }),
  }),
});

builder.queryField('systemHealth', (t) =>
  t.field({ type: HealthRef, resolve: (_, __, ctx) => run(() => detailedHealth(ctx.app, ctx.actor)) }),
);
