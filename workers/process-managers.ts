// The registries the process-manager runner (projector role) and the job workers (worker role)
// start from. Adding a flow is one entry in each: its process manager, and its queue's handlers.
import type { JobHandlers, ProcessManager } from './process-manager.js';
import { usersJobHandlers, usersProcessManager } from './users.js';

/** Every process manager the projector runs (each checkpointed as `pm:<name>`). */
export const processManagers: ProcessManager[] = [usersProcessManager];

/** Job handlers per queue (workers/queues.ts) and job name; the worker role consumes these queues. */
export const jobHandlers: JobHandlers = { users: usersJobHandlers };
