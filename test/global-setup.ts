// Starts (or reuses) the local Postgres and Redis once for the whole run; each test file then makes
// its own database and Redis key prefix (test/support/*), so files run in parallel.
import type { TestProject } from 'vitest/node';
import { ensureLocalServices } from '../tools/local-services.js';

export default async function setup(project: TestProject) {
  process.env.BILLFLOW_QUIET ??= '1';
  const services = await ensureLocalServices();
  project.provide('databaseUrl', services.databaseUrl);
  project.provide('redisUrl', services.redisUrl);
  return async () => {
    await services.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}
