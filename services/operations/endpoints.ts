// The operations page's commands (ADMIN), each declared once (services/app/endpoints.ts): run a failed
// job again, apply a parked event again, set a parked event aside. The gateway makes each one's REST
// route (/api/operations/*), GraphQL mutation and OpenAPI entry.
import { z } from 'zod';
import { DismissedParked, RetriedJob, RetriedParkedEvent } from '../../schema/operations/answers.js';
import type { AppServices } from '../app/context.js';
import { declareCommand } from '../app/endpoints.js';
import { dismissParkedEvent, retryFailedJob, retryParkedEvent } from './operations.js';

const TAGS = ['operations'];
const ParkedParams = z.object({ consumer: z.string(), eventId: z.uuid() });
type Job = { queue: string; jobId: string };
type Parked = { consumer: string; eventId: string; body?: unknown };
const parked = (r: { params: Record<string, string>; body: unknown }): Parked => ({
  consumer: r.params.consumer,
  eventId: r.params.eventId,
  body: r.body,
});

/**
 * The declarations, given what to do once a command has changed the overview: the gateway's live
 * overview recomputes at once rather than at its next tick (services/modules/operations.ts).
 */
export function operationsEndpoints(changed: (app: AppServices) => void) {
  const afterChange =
    <T>(app: AppServices) =>
    (result: T) => {
      changed(app);
      return result;
    };
  return [
    declareCommand({
      name: 'RetryFailedJob',
      permission: 'operations.write',
      scope: 'any queue of this build',
      run: (app, actor, { queue, jobId }: Job) =>
        retryFailedJob(app, actor, queue, jobId).then(afterChange(app)),
      rest: {
        method: 'POST',
        path: '/api/operations/queues/:queue/jobs/:jobId/retry',
        input: (r) => ({ queue: r.params.queue, jobId: r.params.jobId }),
        message: 'Job queued for another run',
        doc: {
          summary: 'Run a failed job again (ADMIN)',
          tags: TAGS,
          params: z.object({ queue: z.string(), jobId: z.string() }),
          data: RetriedJob,
          errors: [404, 409],
        },
      },
      graphql: {
        name: 'retryFailedJob',
        description: 'Runs a failed job again.',
        args: { queue: 'String!', jobId: 'String!' },
        returns: 'Boolean!',
        input: (args) => ({ queue: args.queue as string, jobId: args.jobId as string }),
        answer: () => true,
      },
    }),
    declareCommand({
      name: 'RetryParkedEvent',
      permission: 'operations.write',
      scope: 'any consumer of the log',
      run: (app, actor, { consumer, eventId }: Parked) =>
        retryParkedEvent(app, actor, consumer, eventId).then(afterChange(app)),
      rest: {
        method: 'POST',
        path: '/api/operations/parked/:consumer/:eventId/retry',
        input: parked,
        message: 'Retry requested: the consumer applies the event again shortly',
        doc: {
          summary: 'Apply a parked event again (ADMIN)',
          tags: TAGS,
          params: ParkedParams,
          data: RetriedParkedEvent,
          errors: [404],
        },
      },
      graphql: {
        name: 'retryParkedEvent',
        description: "Asks the consumer's active runner to apply a parked event again.",
        args: { consumer: 'String!', eventId: 'String!' },
        returns: 'Boolean!',
        input: (args) => ({ consumer: args.consumer as string, eventId: args.eventId as string }),
        answer: () => true,
      },
    }),
    declareCommand({
      name: 'DismissParkedEvent',
      permission: 'operations.write',
      scope: 'any consumer of the log',
      run: (app, actor, { consumer, eventId, body }: Parked) =>
        dismissParkedEvent(app, actor, consumer, eventId, body).then(afterChange(app)),
      rest: {
        method: 'POST',
        path: '/api/operations/parked/:consumer/:eventId/dismiss',
        input: parked,
        message: 'Parked event dismissed: it is kept on record and no longer counted',
        doc: {
          summary: 'Set a parked event aside, with a reason (ADMIN); it stays listed on record',
          tags: TAGS,
          params: ParkedParams,
          body: z.object({ reason: z.string().describe('Why it is set aside (required, at most 500)') }),
          data: DismissedParked,
          errors: [404, 409],
        },
      },
      graphql: {
        name: 'dismissParkedEvent',
        description: 'Sets a parked event aside, with a reason (ADMIN): kept on record, no longer counted.',
        args: { consumer: 'String!', eventId: 'String!', reason: 'String!' },
        returns: 'Boolean!',
        input: (args) => ({
          consumer: args.consumer as string,
          eventId: args.eventId as string,
          body: { reason: args.reason },
        }),
        answer: () => true,
      },
    }),
  ];
}
