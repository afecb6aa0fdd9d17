// Runs bench/bills-load.bench.ts with the test set-up (Postgres, Redis) the server tests use.
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({
  root: path.resolve(import.meta.dirname, '..'),
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/load-modules.ts'],
    include: ['bench/bills-load.bench.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
