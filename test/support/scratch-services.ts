// Throw-away Redis and Postgres servers on free loopback ports, for tests that stop and restart a
// server while the product runs (outages, restores). Never the shared 54329/63790 ones.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  aptInstall,
  ensurePgUser,
  findPgBin,
  findRedis,
  isRoot,
  portOpen,
} from '../../tools/local-services.js';

export interface ScratchRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for it to exit); data is not kept. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open but nothing answers, as with a hung host. */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export interface ScratchPostgres {
  /** Superuser URL to the `postgres` database. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const PASSWORD = 'scratch';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitPort(port: number, open: boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while ((await portOpen(port, '127.0.0.1', 200)) !== open) {
    if (Date.now() > until)
      throw new Error(`port ${port} did not ${open ? 'open' : 'close'} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a command to its end without blocking the event loop (the product under test keeps running). */
function run(
  cmd: string,
  args: string[],
  asPostgres = false,
): Promise<{ code: number | null; output: string }> {
  const [file, argv] =
    asPostgres && isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

// Servers left running by a test that failed before close(): end them with this process.
const running = new Set<ChildProcess>();
const pgDirs = new Set<string>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

export async function startScratchRedis(): Promise<ScratchRedis> {
  let bin = findRedis();
  if (!bin) {
    aptInstall(['redis-server']);
    bin = findRedis();
    if (!bin) throw new Error('redis-server installed but not found');
  }
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'billflow-redis-'));
  let child: ChildProcess | null = null;

  const start = async () => {
    if (child) return;
    const c = spawn(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    child = c;
    running.add(c);
    c.once('exit', () => {
      running.delete(c);
      if (child === c) child = null;
    });
    await waitPort(port, true, 10_000);
  };
  const stop = async () => {
    const c = child;
    if (!c) return;
    c.kill('SIGCONT');
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    await waitPort(port, false, 5000);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startScratchPostgres(): Promise<ScratchPostgres> {
  let bin = findPgBin();
  if (!bin) {
    aptInstall(['postgresql']);
    bin = findPgBin();
    if (!bin) throw new Error('postgresql installed but no server binary found');
  }
  ensurePgUser();
  const port = await freePort();
  const base = mkdtempSync(path.join(os.tmpdir(), 'billflow-pg-'));
  // The server runs as `postgres`: it must reach its directory.
  chmodSync(base, 0o755);
  const dataDir = path.join(base, 'data');
  const pwFile = path.join(base, 'pw');
  const logFile = path.join(base, 'postgres.log');
  writeFileSync(pwFile, `${PASSWORD}\n`);
  if (isRoot()) await run('chown', ['-R', 'postgres', base]);
  pgDirs.add(base);
  const init = await run(
    path.join(bin, 'initdb'),
    [
      '-D',
      dataDir,
      '-U',
      'postgres',
      `--pwfile=${pwFile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=reject',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ],
    true,
  );
  if (init.code !== 0) throw new Error(`initdb failed:\n${init.output.slice(-2000)}`);
  // Loopback TCP only, no Unix socket; small, and not durable (a test server).
  writeFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    `${[
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      "unix_socket_directories = ''",
      'max_connections = 100',
      'shared_buffers = 32MB',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
    ].join('\n')}\n`,
  );
  if (isRoot()) await run('chown', ['-R', 'postgres', dataDir]);
  const pgCtl = path.join(bin, 'pg_ctl');
  let up = false;

  const start = async () => {
    if (up) return;
    const r = await run(pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', '60', 'start'], true);
    if (r.code !== 0) throw new Error(`scratch Postgres did not start:\n${r.output.slice(-2000)}`);
    up = true;
  };
  const stop = async () => {
    if (!up) return;
    const r = await run(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop'], true);
    if (r.code !== 0) throw new Error(`scratch Postgres did not stop:\n${r.output.slice(-2000)}`);
    up = false;
  };
  await start();
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop,
    start,
    async close() {
      await stop();
      rmSync(base, { recursive: true, force: true });
      pgDirs.delete(base);
    },
  };
}

// A Postgres that a failed test left running is stopped (immediately) when this process ends.
process.once('exit', () => {
  const bin = findPgBin();
  if (!bin) return;
  for (const base of pgDirs) {
    const args = ['-D', path.join(base, 'data'), '-m', 'immediate', 'stop'];
    if (isRoot())
      spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args], { stdio: 'ignore' });
    else spawnSync(path.join(bin, 'pg_ctl'), args, { stdio: 'ignore' });
  }
});
