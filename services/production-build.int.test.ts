// The production image runs compiled JavaScript with production dependencies only (Dockerfile). No
// Docker engine runs here, so what the image relies on is checked directly: every package the server
// imports is a production dependency, the server compiles with tsconfig.build.json, and the compiled
// entry point starts, serves and stops on SIGTERM. The image pins, and the local Postgres's
// idle-transaction cut-off matching docker-compose.yml's, are checked too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { testSecrets } from '../test/support/app.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { createTestRedis, type TestRedis } from '../test/support/redis.js';
import { NODE_FLAGS } from './shared/node-flags.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SERVER_DIRS = ['schema', 'services', 'projections', 'workers'];
/** The offline tools in the image (tsconfig.build.json), with what they import from tools/. */
const TOOL_FILES = ['migrate', 'rotate-key', 'cli', 'local-secrets', 'local-services'].map((f) =>
  path.join(ROOT, 'tools', `${f}.ts`),
);
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

function serverSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...serverSources(p));
    else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && entry.name !== 'contract.ts')
      out.push(p);
  }
  return out;
}

/** 'pkg' of `import … from 'pkg/sub'` and `import('@scope/pkg')`; relative and node: imports are not packages. */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('.') || spec.startsWith('node:')) continue;
    // A type-only import is erased by the compiler: it needs no package at run time.
    if (/^\s*(?:import|export)\s+type\s/.test(m[0].trim())) continue;
    const parts = spec.split('/');
    found.add(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  return [...found];
}

describe('the production build', () => {
  let db: TestDatabase | null = null;
  let redis: TestRedis | null = null;
  const outDir = path.join(ROOT, '.local', 'build-test');
  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    await redis?.cleanup();
    await db?.drop();
  });

  it('imports only production dependencies in server code', () => {
    const missing: string[] = [];
    for (const file of [...SERVER_DIRS.flatMap((dir) => serverSources(path.join(ROOT, dir))), ...TOOL_FILES])
      for (const name of importedPackages(file))
        if (!(name in pkg.dependencies)) missing.push(`${path.relative(ROOT, file)}: ${name}`);
    expect(missing).toEqual([]);
  });

  it('compiles to JavaScript that starts every role, serves, and stops on SIGTERM; its offline tools run', async () => {
    const tsc = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(existsSync(path.join(outDir, 'services', 'main.js'))).toBe(true);

    db = await createTestDatabase('build');
    await db.pool.end();
    redis = await createTestRedis('build');
    const secrets = testSecrets();
    const child = spawn(process.execPath, [...NODE_FLAGS, path.join(outDir, 'services', 'main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        ROLE: 'all',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        ADMIN_PASSWORD: 'Build-Test-Pass-1',
        LOG_LEVEL: 'warn',
        ...secrets,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`compiled server did not start:\n${out}`)), 120_000);
      child.stdout.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`compiled server exited ${code}:\n${out}`)));
    });
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(200);
    const signIn = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@billflow.local', password: 'Build-Test-Pass-1' }),
    });
    expect(signIn.status).toBe(200);

    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);

    // With the product stopped, the compiled key rotation runs on production dependencies alone.
    const rotate = spawnSync(process.execPath, [path.join(outDir, 'tools', 'rotate-key.js')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: secrets.ENCRYPTION_KEY,
        NEW_ENCRYPTION_KEY: testSecrets().ENCRYPTION_KEY,
      },
    });
    expect(rotate.stderr).toBe('');
    expect(rotate.stdout).toMatch(/Re-wrapped 1 subject key\(s\) and 1 key\(s\) of Billflow's own/);
    expect(rotate.status).toBe(0);
    expect(existsSync(path.join(outDir, 'tools', 'migrate.js'))).toBe(true);
  }, 420_000);
});

describe('deployment settings', () => {
  it('pins every image of docker-compose.yml and the Dockerfile to a version', () => {
    const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
    const images = Object.values(compose.services as Record<string, { image?: string }>)
      .map((s) => s.image)
      .filter((i): i is string => Boolean(i) && i !== 'billflow:local');
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    images.push(...[...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]));
    expect(images.length).toBeGreaterThan(3);
    const floating = images.filter((i) => !/:\d+(\.\d+)+/.test(i) || /:latest\b/.test(i));
    expect(floating).toEqual([]);
  });

  it('builds the image in stages and runs compiled JavaScript without tsx', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM\s/m).slice(1);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = stages[stages.length - 1];
    expect(final).toMatch(/CMD \["node", (?:"--[^"]+", )*"dist\/services\/main\.js"\]/);
    expect(final).not.toMatch(/tsx|npm ci(?![^\n]*--omit=dev)/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });

  it('starts every process with the Node flags of services/shared/node-flags.ts', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd && JSON.parse(cmd[1])).toEqual(['node', ...NODE_FLAGS, 'dist/services/main.js']);
    expect(pkg.scripts.start.split(/\s+/)).toEqual(['tsx', ...NODE_FLAGS, 'tools/start.ts']);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npx tsx ${NODE_FLAGS.join(' ')} services/main.ts`);
  });

  it('gives the local Postgres the same idle-transaction cut-off as docker-compose.yml', async () => {
    const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/idle_in_transaction_session_timeout=60s/);
    const t = await createTestDatabase('idle');
    try {
      const c = new pg.Client({ connectionString: t.url });
      await c.connect();
      const r = await c.query('SHOW idle_in_transaction_session_timeout');
      await c.end();
      expect(r.rows[0].idle_in_transaction_session_timeout).toBe('1min');
    } finally {
      await t.drop();
    }
  });
});
