// A worker thread's entry for a TypeScript module: the product runs on tsx, whose loader a worker
// does not inherit, so the module is imported through tsx's API (a .js build imports it directly).
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(workerData.module, import.meta.url);
} else await import(workerData.module);
