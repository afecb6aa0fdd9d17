import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// Node loads graphql's CommonJS entry for packages (Pothos, Yoga); Vite would pick the .mjs one for our
// code, and graphql refuses objects from "another realm". One entry for all.
const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

// Three projects: server-side tests (real Postgres and Redis), web component tests (jsdom), and
// end-to-end tests in real Chromium against a real gateway.
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
        test: {
          name: 'server',
          environment: 'node',
          setupFiles: ['test/load-modules.ts'],
          include: ['{schema,services,projections,workers,tools,test}/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.e2e.test.ts'],
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
          // Each file drives its own Chromium and gateway: two at a time on a 2-core machine.
          maxWorkers: 2,
          // A project with its own maxWorkers needs its own group (vitest 4): browsers run after the rest.
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
        },
      },
    ],
  },
});
