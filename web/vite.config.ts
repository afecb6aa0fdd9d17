// The web app: Vite + React + Tailwind. `npx vite build --config web/vite.config.ts` writes web/dist,
// which the gateway serves; the dev server proxies the API and GraphQL (with WebSockets) to it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));
const gateway = process.env.BILLFLOW_GATEWAY_URL ?? 'http://127.0.0.1:3000';

export default defineConfig(({ command }) => {
  // A build is always a production build, even when started under NODE_ENV=test (vitest, tools):
  // otherwise React's development code would be bundled.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root,
    plugins: [react(), tailwindcss()],
    build: {
      outDir: path.join(root, 'dist'),
      emptyOutDir: true,
      // The manifest lets scripts/bundle-budget.ts find the JS that /login loads.
      manifest: true,
      sourcemap: process.env.WEB_SOURCEMAP === '1',
      target: 'es2022',
    },
    server: {
      proxy: {
        '/api': { target: gateway, changeOrigin: true },
        '/graphql': { target: gateway, changeOrigin: true, ws: true },
      },
    },
    preview: {
      proxy: {
        '/api': { target: gateway, changeOrigin: true },
        '/graphql': { target: gateway, changeOrigin: true, ws: true },
      },
    },
  };
});
