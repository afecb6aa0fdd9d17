// System health for the dashboard card (ADMIN).
import { detailedHealth, type SystemHealth, type Usage } from '../../../operations/health.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { LogHolderRef } from './operations.js';

const UsageRef = builder.objectRef<Usage>('Usage').implement({
  fields: (t) => ({
    used: t.exposeFloat('used'),
    total: t.exposeFloat('total'),
    percentage: t.exposeFloat('percentage'),
  }),
});

const ServiceStatus = builder
  .objectRef<{ status: string; responseTime: number | null }>('ServiceStatus')
  .implement({
    fields: (t) => ({
      status: t.exposeString('status'),
      responseTime: t.exposeFloat('responseTime', { nullable: true, description: 'milliseconds' }),
    }),
  });

const HealthRef = builder.objectRef<SystemHealth>('SystemHealth').implement({
  fields: (t) => ({
    status: t.exposeString('status'),
    uptime: t.exposeInt('uptime', { description: 'seconds' }),
    version: t.exposeString('version'),
    timestamp: t.field({ type: 'DateTime', resolve: (h) => h.timestamp }),
    database: t.field({ type: ServiceStatus, resolve: (h) => h.database }),
    redis: t.field({ type: ServiceStatus, resolve: (h) => h.redis }),
    api: t.field({ type: ServiceStatus, resolve: (h) => h.api }),
    memory: t.field({ type: UsageRef, resolve: (h) => h.memory }),
    disk: t.field({ type: UsageRef, resolve: (h) => h.disk }),
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
