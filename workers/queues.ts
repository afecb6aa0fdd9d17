// Every BullMQ queue this build knows, in one place: the worker role starts their consumers, the
// process-manager runner enqueues into them, the operations page lists them.
export const QUEUES = {
  /** Housekeeping on a schedule (purge expired refresh tokens). */
  maintenance: 'maintenance',
  /** Reactions of the users flows (e-mail claims, last-admin guard). */
  users: 'users',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const QUEUE_NAMES: QueueName[] = Object.values(QUEUES);

/** Key prefix of every queue: one deployment's queues, apart from another's on the same Redis. */
export const queuePrefix = (redisPrefix: string) => `${redisPrefix}:q`;
