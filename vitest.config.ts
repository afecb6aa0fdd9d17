import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// Node loads graphql's CommonJS entry for packages (Pothos, Yoga); Vite would pick the .mjs one for our
// code, and graphql refuses objects from "another realm". One entry for all.
const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

// Four projects: server-side tests (real Postgres and Redis), the server's unit tests, web component
// tests (jsdom), and end-to-end tests in real Chromium against a real gateway.
// Test files say what they need by name: `*.unit.test.ts` needs no Postgres or Redis (pure code, or
// a server started in the test's own process such as the QuickBooks simulator), `*.int.test.ts`
// needs Postgres or Redis (or another store), `*.e2e.test.ts` runs in a browser; the web's component
// tests stay `*.test.ts(x)` under jsdom. The server project takes every `*.test.ts` in its folders but
// e2e and unit ones, which server-unit takes (`--project 'server*'` runs both).
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // A test app's start is bounded well below this (test/support/app.ts: 40 s, from a copy of the
    // run's prepared database), so a hook that starts one and times out here is not a slow start.
    hookTimeout: 60_000,
    // Two files at a time in every project: vitest's default on a 2-core machine is one (cores - 1),
    // and most of a server or browser test's time is spent waiting on Postgres, Redis or Chromium.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
        test: {
          name: 'server',
          environment: 'node',
          setupFiles: ['test/load-modules.ts'],
          include: ['{schema,services,projections,workers,tools,test}/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.e2e.test.ts', '**/*.unit.test.ts'],
        },
      },
      {
        extends: true,
        resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
        test: {
          // The server's unit tests, in two long-lived workers instead of a fresh process per file: each
          // fresh one spent seconds loading the product's modules (test/load-modules.ts) to run tests of
          // milliseconds. They start no product and touch no Postgres or Redis, and what they change in
          // shared modules (the registries, timers) they put back. Decision 0034.
          name: 'server-unit',
          environment: 'node',
          setupFiles: ['test/load-modules.ts'],
          include: ['{schema,services,projections,workers,tools,test}/**/*.unit.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['web/src/**/*.test.{ts,tsx}'],
        },
      },
      {
        extends: true,
        // The gateway runs inside the e2e process too: the same single graphql entry.
        resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
        test: {
          name: 'e2e',
          setupFiles: ['test/load-modules.ts'],
          environment: 'node',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 60_000,
          // expect.poll waits for an outcome as long as a locator's waitFor does (the pages' 10 s), not
          // vitest's 1 s: a screen that answers through the gateway can take longer on a busy machine.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
