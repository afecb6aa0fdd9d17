// Jobs of the payment process managers (payments.ts): start-qb-sync, pay-bills. Each is idempotent and reports back
// with a command whose id is the job id.
import type { JobHandler } from '../process-manager.js';

export const qbPaymentJobHandlers: Record<string, JobHandler> = {};
