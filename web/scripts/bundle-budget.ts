// The JS budget of the sign-in screen: the gzip size of the JavaScript the built index.html loads
// before /login can render (the entry chunk and its static imports, found through the Vite manifest).
// Lazy chunks (the router, the shell, each screen, the toast renderer) do not count. The gateway sends
// these files precompressed (brotli to browsers, which is smaller still; gzip to gzip-only clients),
// so the gzip size is an upper bound of what goes over the wire (issue 8: ≤ 100 KB). `npm run bench`
// measures the same over HTTP (bench/web.ts); run this file directly to print the figure (exit code 1
// when over budget).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const LOGIN_JS_BUDGET_BYTES = 100 * 1024;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export type ViteManifest = Record<string, ManifestChunk>;

export interface BundleFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface BundleBudgetResult {
  files: BundleFile[];
  bytes: number;
  gzipBytes: number;
  budgetBytes: number;
  withinBudget: boolean;
}

export const DEFAULT_DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

export function readManifest(distDir: string = DEFAULT_DIST): ViteManifest {
  const file = path.join(distDir, '.vite', 'manifest.json');
  if (!existsSync(file))
    throw new Error(`No Vite manifest at ${file}: run \`npx vite build --config web/vite.config.ts\` first`);
  return JSON.parse(readFileSync(file, 'utf8')) as ViteManifest;
}

/** The manifest keys of the entry chunk and everything it imports statically (transitively). */
export function initialChunkKeys(manifest: ViteManifest): string[] {
  const entryKey = manifest['index.html']
    ? 'index.html'
    : Object.keys(manifest).find((k) => manifest[k].isEntry);
  if (!entryKey) throw new Error('The Vite manifest has no entry chunk');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) visit(imported);
  };
  visit(entryKey);
  return [...seen];
}

/** Gzip size of the JS /login needs before it can render. */
export function measureLoginBundle(
  distDir: string = DEFAULT_DIST,
  budgetBytes: number = LOGIN_JS_BUDGET_BYTES,
): BundleBudgetResult {
  const manifest = readManifest(distDir);
  const files: BundleFile[] = initialChunkKeys(manifest)
    .map((key) => manifest[key].file)
    .filter((file) => file.endsWith('.js'))
    .map((file) => {
      const content = readFileSync(path.join(distDir, file));
      return { file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
    });
  const gzipBytes = files.reduce((sum, f) => sum + f.gzipBytes, 0);
  return {
    files,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    gzipBytes,
    budgetBytes,
    withinBudget: gzipBytes <= budgetBytes,
  };
}

/** The gzip bytes of the /login JS (what `npm run bench` reports). */
export function loginBundleGzipBytes(distDir: string = DEFAULT_DIST): number {
  return measureLoginBundle(distDir).gzipBytes;
}

/** Source files that the build put in chunks of their own (loaded on demand). */
export function lazyChunkSources(manifest: ViteManifest): string[] {
  return Object.values(manifest)
    .filter((chunk) => chunk.isDynamicEntry && chunk.src)
    .map((chunk) => chunk.src as string);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = measureLoginBundle(process.argv[2] ?? DEFAULT_DIST);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const f of result.files) console.log(`${f.file}  ${kb(f.bytes)}  gzip ${kb(f.gzipBytes)}`);
  console.log(`/login initial JS: ${kb(result.gzipBytes)} gzip (budget ${kb(result.budgetBytes)})`);
  if (!result.withinBudget) process.exit(1);
}
