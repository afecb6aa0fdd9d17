// The worker role: every BullMQ queue this build processes.
import type { AppServices } from '../services/app/context.js';
import { redisOptions } from '../services/redis.js';
import { startMaintenance } from './maintenance.js';

export async function startWorkers(app: AppServices) {
  const connection = redisOptions(app.config.REDIS_URL);
  const prefix = `${app.config.REDIS_PREFIX}:q`;
  const maintenance = await startMaintenance(app, connection, prefix);
  return {
    async close() {
      await maintenance.close();
    },
  };
}
