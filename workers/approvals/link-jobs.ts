// Jobs of the payment process managers (payments.ts): notify-manager, send-links, notify-completed. Each is idempotent and reports back
// with a command whose id is the job id.
import type { JobHandler } from '../process-manager.js';

export const linkJobHandlers: Record<string, JobHandler> = {};
