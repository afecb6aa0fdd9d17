// Jobs of the payment process managers (payments.ts): request-nacha, generate-nacha. Each is idempotent and reports back
// with a command whose id is the job id.
import type { JobHandler } from '../process-manager.js';

export const nachaJobHandlers: Record<string, JobHandler> = {};
