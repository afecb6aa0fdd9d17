// The core's own BullMQ queue, and how every queue's keys are named. A module's queues are the keys
// of its `jobHandlers` (services/modules/<name>.ts); the worker role consumes every one, the
// operations page lists them (`AppServices.queueNames`).
export const QUEUES = {
  /** Housekeeping on a schedule (purge expired refresh tokens, anchor the log). */
  maintenance: 'maintenance',
} as const;

/** Key prefix of every queue: one deployment's queues, apart from another's on the same Redis. */
export const queuePrefix = (redisPrefix: string) => `${redisPrefix}:q`;
