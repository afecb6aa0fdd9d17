// `npm test`: everything CI checks, in order — the Debian packages the tests need, local Postgres and
// Redis, lint and format, types, the web build, the audit CLI on the demo data, then every test
// (server, web, browser). Each step prints a header and its duration; a failing step fails the run
// but the others still run, and the last line is always 'tests: N passed, N failed, N skipped' (CI
// judges the log by that line). Extra arguments go to vitest (e.g. `npm test -- services/gateway`)
// and skip the static checks and the audit step.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { aptInstall, ensureLocalServices, type LocalServices, ROOT } from './local-services.js';

const vitestArgs = process.argv.slice(2);
const REPORT = path.join(ROOT, '.local', 'vitest-report.json');
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface StepResult {
  name: string;
  status: 'ok' | 'FAILED' | 'skipped';
  seconds: number;
}
const results: StepResult[] = [];
let childEnv: NodeJS.ProcessEnv = { ...process.env };
let services: LocalServices | null = null;
let current: ReturnType<typeof spawn> | null = null;
let interrupted = false;

function print(line = '') {
  process.stdout.write(`${line}\n`);
}

/** Runs one step: header, body, outcome with its duration. A thrown error is a failed step. */
async function step(name: string, body: () => Promise<boolean>): Promise<boolean> {
  if (interrupted) return false;
  print();
  print(`=== ${name}`);
  const started = Date.now();
  let ok: boolean;
  try {
    ok = await body();
  } catch (err) {
    print(`${err instanceof Error ? err.message : String(err)}`);
    ok = false;
  }
  const seconds = (Date.now() - started) / 1000;
  results.push({ name, status: ok ? 'ok' : 'FAILED', seconds });
  print(`=== ${name}: ${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s`);
  return ok;
}

function skip(name: string, why: string) {
  print();
  print(`=== ${name}: skipped (${why})`);
  results.push({ name, status: 'skipped', seconds: 0 });
}

function run(cmd: string, args: string[]): Promise<boolean> {
  print(`$ ${[cmd, ...args].join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: 'inherit', env: childEnv });
    current = child;
    child.once('error', (err) => {
      print(`could not run ${cmd}: ${err.message}`);
      resolve(false);
    });
    child.once('close', (code) => {
      current = null;
      if (code !== 0) print(`exit ${code ?? 'by signal'}`);
      resolve(code === 0);
    });
  });
}

/** A static check: a command that must exit 0. */
interface Check {
  name: string;
  cmd: string[];
  /** Runs only when this holds (e.g. the web app exists yet). */
  when?: () => boolean;
}

const CHECKS: Check[] = [
  { name: 'lint and format (biome)', cmd: ['npx', 'biome', 'check', '.'] },
  { name: 'types (tsc)', cmd: ['npx', 'tsc', '-p', 'tsconfig.json', '--noEmit'] },
  // ── Schema freshness check: the lead adds it here, e.g.
  //    { name: 'GraphQL schema is current', cmd: ['npx', 'tsx', '…'] },
  {
    name: 'web build (vite)',
    cmd: ['npx', 'vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    when: () => existsSync(path.join(ROOT, 'web', 'vite.config.ts')),
  },
];

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{
    name: string;
    status: string;
    message: string;
    assertionResults: Array<{ status: string; fullName?: string; failureMessages?: string[] }>;
  }>;
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  notes: string[];
}

/** Counts from vitest's JSON report, plus what the report alone would hide. */
function countResults(vitestOk: boolean | null): Counts {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, notes: [] };
  if (existsSync(REPORT)) {
    const r = JSON.parse(readFileSync(REPORT, 'utf8')) as VitestReport;
    counts.passed = r.numPassedTests;
    counts.failed = r.numFailedTests;
    counts.skipped = r.numPendingTests + r.numTodoTests;
    // A file that fails to load, or whose beforeAll throws, fails no single test: count it anyway.
    const broken = r.testResults.filter(
      (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
    );
    for (const f of broken)
      counts.notes.push(`test file failed outside its tests: ${path.relative(ROOT, f.name)}`);
    // Each failed test by name and the first line of its failure, in the summary at the end of the
    // log: CI may keep only the log's tail, and a flaky test must be findable from it.
    for (const f of r.testResults)
      for (const a of f.assertionResults.filter((x) => x.status === 'failed')) {
        const first = (a.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 240);
        counts.notes.push(`failed: ${path.relative(ROOT, f.name)} > ${a.fullName ?? '?'}: ${first}`);
      }
    counts.failed += broken.length;
  } else if (vitestOk !== null) {
    counts.notes.push('vitest wrote no report');
  }
  // vitest failed (unhandled errors, no test files) although no test did: that is a failure too.
  if (vitestOk === false && counts.failed === 0) {
    counts.notes.push('vitest exited non-zero');
    counts.failed += 1;
  }
  // Lint, types or build failing must show in the closing line, not only in the exit code.
  const failedChecks = results.filter((s) => s.status === 'FAILED' && !s.name.startsWith('tests'));
  for (const s of failedChecks) counts.notes.push(`step failed: ${s.name}`);
  counts.failed += failedChecks.length;
  return counts;
}

async function finish(vitestOk: boolean | null): Promise<never> {
  if (services) {
    await services.stop().catch((err) => print(`stopping local services: ${String(err)}`));
    services = null;
  }
  const counts = countResults(vitestOk);
  print();
  print('=== summary');
  for (const s of results)
    print(`  ${s.status.padEnd(8)}${s.name.padEnd(44)}${s.seconds.toFixed(1).padStart(7)} s`);
  for (const n of counts.notes) print(`  note: ${n}`);
  if (counts.passed + counts.failed === 0) print('  note: no test ran');
  if (interrupted) print('  note: interrupted');
  const ok = !interrupted && counts.failed === 0 && counts.passed > 0;
  print();
  print(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  process.exit(ok ? 0 : interrupted ? 130 : 1);
}

function onSignal(signal: NodeJS.Signals) {
  if (interrupted) return;
  interrupted = true;
  // Ctrl+C already reaches the child (same process group); a SIGTERM from CI must be passed on.
  if (signal !== 'SIGINT') current?.kill(signal);
  if (!current) void finish(null);
}

async function main() {
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  // Chromium for the browser tests. Postgres and Redis are installed by ensureLocalServices() in the
  // next step, sharing the one `apt-get update`.
  if (existsSync(CHROMIUM_PATH)) {
    skip('Debian packages (chromium)', `${CHROMIUM_PATH} present`);
  } else {
    await step('Debian packages (chromium)', async () => {
      aptInstall(['chromium']);
      return existsSync(CHROMIUM_PATH);
    });
  }

  // Started once here and handed to vitest by URL: its globalSetup then reuses them.
  const servicesOk = await step('local services (Postgres, Redis)', async () => {
    services = await ensureLocalServices();
    childEnv = { ...process.env, DATABASE_URL: services.databaseUrl, REDIS_URL: services.redisUrl };
    print(`Postgres ${new URL(services.databaseUrl).host}, Redis ${new URL(services.redisUrl).host}`);
    return true;
  });

  if (vitestArgs.length > 0) {
    for (const c of CHECKS) skip(c.name, 'arguments given: only the tests run');
  } else {
    for (const c of CHECKS) {
      if (c.when && !c.when()) skip(c.name, 'nothing to check yet');
      else await step(c.name, () => run(c.cmd[0], c.cmd.slice(1)));
    }
  }

  // `npm run audit` itself on the demo data, as an auditor runs it (tools/audit-ci.ts says what it
  // expects): in a process of its own, as the product runs, so none of the product loads in here.
  const audit = 'audit (demo data)';
  if (vitestArgs.length > 0) skip(audit, 'arguments given: only the tests run');
  else if (!servicesOk) skip(audit, 'Postgres and Redis are not available');
  else await step(audit, () => run('npx', ['tsx', 'tools/audit-ci.ts']));

  rmSync(REPORT, { force: true });
  mkdirSync(path.dirname(REPORT), { recursive: true });
  let vitestOk: boolean | null = null;
  if (!servicesOk) {
    skip('tests (vitest)', 'Postgres and Redis are not available');
  } else if (!interrupted) {
    vitestOk = await step('tests (vitest)', () =>
      run('npx', [
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile=${path.relative(ROOT, REPORT)}`,
        ...vitestArgs,
      ]),
    );
  }
  await finish(vitestOk);
}

main().catch(async (err) => {
  print(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  results.push({ name: 'npm test itself', status: 'FAILED', seconds: 0 });
  await finish(null);
});
