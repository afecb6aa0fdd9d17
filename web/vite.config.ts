// The web app: Vite + React + Tailwind. `npx vite build --config web/vite.config.ts` writes web/dist,
// which the gateway serves; the dev server proxies the API and GraphQL (with WebSockets) to it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createServer, defineConfig, type Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';

const root = path.dirname(fileURLToPath(import.meta.url));
const gateway = process.env.BILLFLOW_GATEWAY_URL ?? 'http://127.0.0.1:3000';

/**
 * Puts the sign-in screen, rendered at build time, into index.html: on /login it paints as soon as
 * the HTML and the CSS have arrived, before the JavaScript has loaded and run (its heading is the
 * page's Largest Contentful Paint). It is a picture of the screen, not the screen: its controls are
 * disabled (no native submit, nothing typed into it is lost; people and browser tests wait for the
 * live form) but drawn like the live ones, and React replaces it on start (createRoot, no hydration).
 * Any other path removes it before the first paint.
 */
function prerenderLogin(): Plugin {
  return {
    name: 'billflow:prerender-login',
    apply: 'build',
    async transformIndexHtml(html) {
      const vite = await createServer({
        configFile: false,
        root,
        logLevel: 'error',
        plugins: [react()],
        server: { middlewareMode: true, hmr: false, ws: false },
        appType: 'custom',
        optimizeDeps: { noDiscovery: true, include: [] },
      });
      let markup: string;
      try {
        const { LoginScreen } = await vite.ssrLoadModule('/src/features/auth/components/login-screen.tsx');
        markup = renderToStaticMarkup(createElement(LoginScreen));
      } finally {
        await vite.close();
      }
      const picture = markup.replace(/<(input|button)\b/g, '<$1 disabled="" style="opacity:1"');
      const emptyRoot = '<div id="root"></div>';
      if (!html.includes(emptyRoot)) throw new Error('index.html has no empty #root to prerender into');
      return html.replace(
        emptyRoot,
        `<div id="root">${picture}</div><script>if(location.pathname!=='/login')document.getElementById('root').replaceChildren()</script>`,
      );
    },
  };
}

export default defineConfig(({ command }) => {
  // A build is always a production build, even when started under NODE_ENV=test (vitest, tools):
  // otherwise React's development code would be bundled.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root,
    plugins: [
      react(),
      tailwindcss(),
      prerenderLogin(),
      // Writes a .br (quality 11) and a .gz (level 9) beside every asset and index.html, once at build
      // time; the gateway serves them by Accept-Encoding (@fastify/static preCompressed), so no CPU
      // is spent compressing per request. A maintained plugin rather than our own zlib loop: it
      // hooks in after Vite's manifest and skips files that would not get smaller.
      compression({
        algorithms: ['brotliCompress', 'gzip'],
        exclude: [/\.vite\//, /\.map$/],
        logLevel: 'silent',
      }),
    ],
    build: {
      outDir: path.join(root, 'dist'),
      emptyOutDir: true,
      // The manifest lets scripts/bundle-budget.ts find the JS that /login loads.
      manifest: true,
      sourcemap: process.env.WEB_SOURCEMAP === '1',
      target: 'es2022',
      rollupOptions: {
        output: {
          // Vendor code in chunks of its own, which stay cached across releases of the app: React for
          // every page, react-router only for the router chunk (a signed-out /login does not load it).
          manualChunks(id) {
            if (/[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/.test(id)) return 'react';
            if (/[\\/]node_modules[\\/](react-router|react-router-dom)[\\/]/.test(id)) return 'react-router';
            return undefined;
          },
        },
      },
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
