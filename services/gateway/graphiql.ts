// GraphiQL at GET /graphql (a browser's Accept: text/html) from this server's own files. Yoga's
// default page loads GraphiQL from a CDN and stays blank offline; @graphql-yoga/render-graphiql
// bundles it but inlines 9 MB of script, styles and editor workers (as blob: URLs) into every page.
// Here the same bundle is served as separate same-origin files: the page holds no script of its
// own, so it runs under a CSP without 'unsafe-inline', and a browser caches the bundle.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';

const gzipAsync = promisify(gzip);

const require = createRequire(import.meta.url);
const BUNDLE_VERSION: string = JSON.parse(
  readFileSync(
    path.join(path.dirname(require.resolve('@graphql-yoga/render-graphiql')), '..', 'package.json'),
    'utf8',
  ),
).version;

/** Where the files are served; the version in the path lets browsers keep them for good. */
export const GRAPHIQL_ASSETS = `/graphql/graphiql/${BUNDLE_VERSION}`;

interface Asset {
  type: string;
  body: Buffer;
  gzipped?: Promise<Buffer>;
}

// Monaco asks for its workers by label; the page's own CSP lets same-origin workers run.
const MONACO_ENV = `self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (_moduleId, label) {
    var base = ${JSON.stringify(GRAPHIQL_ASSETS)};
    return base + (label === 'json' ? '/json.worker.js' : label === 'graphql' ? '/graphql.worker.js' : '/editor.worker.js');
  },
};
`;
const START = `YogaGraphiQL.renderYogaGraphiQL(
  document.getElementById('root'),
  JSON.parse(document.getElementById('graphiql-options').textContent),
);
`;

let assets: Promise<Map<string, Asset>> | null = null;

/** The bundle is 9 MB: read on the first page load, not at start. */
function loadAssets(): Promise<Map<string, Asset>> {
  assets ??= import('@graphql-yoga/render-graphiql/graphiql').then((b) => {
    const js = 'application/javascript; charset=utf-8';
    const icon = /^data:([^;]+);base64,(.*)$/.exec(b.favicon);
    return new Map<string, Asset>([
      ['graphiql.css', { type: 'text/css; charset=utf-8', body: Buffer.from(b.css) }],
      ['graphiql.js', { type: js, body: Buffer.from(b.js) }],
      ['monaco-env.js', { type: js, body: Buffer.from(MONACO_ENV) }],
      ['start.js', { type: js, body: Buffer.from(START) }],
      ['editor.worker.js', { type: js, body: Buffer.from(b.editorWorkerService) }],
      ['json.worker.js', { type: js, body: Buffer.from(b.jsonWorker) }],
      ['graphql.worker.js', { type: js, body: Buffer.from(b.graphqlWorker) }],
      ['favicon.ico', { type: icon?.[1] ?? 'image/x-icon', body: Buffer.from(icon?.[2] ?? '', 'base64') }],
    ]);
  });
  return assets;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Serves the files and answers Yoga's `renderGraphiQL` option: the page that names them.
 */
export function graphiqlPage(server: FastifyInstance): (options?: GraphiQLOptions) => string {
  server.get<{ Params: { file: string } }>(`${GRAPHIQL_ASSETS}/:file`, async (req, reply) => {
    const asset = (await loadAssets()).get(req.params.file);
    if (!asset) return reply.callNotFound();
    reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable');
    reply.header('vary', 'Accept-Encoding');
    // Several megabytes of script: compressed once, on the first request that accepts it.
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      asset.gzipped ??= gzipAsync(asset.body);
      return reply.header('content-encoding', 'gzip').send(await asset.gzipped);
    }
    return reply.send(asset.body);
  });

  return (options) => {
    const title = escapeHtml(options?.title ?? 'Billflow GraphiQL');
    // A data block, not a script: JSON with '<' escaped cannot end the element.
    const json = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
    return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="icon" href="${GRAPHIQL_ASSETS}/favicon.ico" />
    <link rel="stylesheet" href="${GRAPHIQL_ASSETS}/graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${GRAPHIQL_ASSETS}/monaco-env.js"></script>
    <script src="${GRAPHIQL_ASSETS}/graphiql.js"></script>
    <script src="${GRAPHIQL_ASSETS}/start.js"></script>
  </body>
</html>
`;
  };
}
