// `npm test`: everything CI checks, in order — the Debian packages the tests need, lint and format,
// types, the committed GraphQL schema, the web build, then every test (server, web, browser) against
// real Postgres, Redis and Chromium. Ends with one line 'tests: N passed, N failed, N skipped'.
// Extra arguments go to vitest (e.g. `npm test -- services/gateway`) and skip the static checks.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureLocalServices, ROOT } from './local-services.js';

const extra = process.argv.slice(2);
const report = path.join(ROOT, '.local', 'vitest-report.json');
let failed = false;

function step(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  process.stdout.write(`\n=== ${name}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
  const ok = r.status === 0;
  process.stdout.write(
    `=== ${name}: ${ok ? 'ok' : `FAILED (exit ${r.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  if (!ok) failed = true;
  return ok;
}

function ensureChromium() {
  if (existsSync('/usr/bin/chromium')) return;
  if (process.getuid?.() !== 0) {
    process.stdout.write(
      'chromium is missing: install it with `sudo apt-get install -y chromium` for the browser tests\n',
    );
    return;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  process.stdout.write('Installing Debian chromium for the browser tests…\n');
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  const r = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  if (r.status !== 0) throw new Error('apt-get install chromium failed');
}

function summary(): { passed: number; failed: number; skipped: number } {
  if (!existsSync(report)) return { passed: 0, failed: 0, skipped: 0 };
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  };
  return {
    passed: json.numPassedTests,
    failed: json.numFailedTests,
    skipped: json.numPendingTests + json.numTodoTests,
  };
}

async function main() {
  ensureChromium();
  const services = await ensureLocalServices();
  const env = {
    ...process.env,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    BILLFLOW_QUIET: '1',
  };
  try {
    if (extra.length === 0) {
      step('lint and format (biome)', 'npx', ['biome', 'check', '.']);
      step('types (tsc)', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
      if (existsSync(path.join(ROOT, 'web', 'vite.config.ts'))) {
        step('web build (vite)', 'npx', [
          'vite',
          'build',
          '--config',
          'web/vite.config.ts',
          '--logLevel',
          'warn',
        ]);
      }
    }
    rmSync(report, { force: true });
    step(
      'tests (vitest: server, web, e2e)',
      'npx',
      ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...extra],
      env,
    );
  } finally {
    await services.stop();
  }
  const s = summary();
  if (s.passed + s.failed === 0) failed = true;
  if (s.failed > 0) failed = true;
  process.stdout.write(`\ntests: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped\n`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.stdout.write('\ntests: 0 passed, 1 failed, 0 skipped\n');
  process.exit(1);
});
