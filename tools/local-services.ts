// Starts the embedded Postgres and Redis on loopback, with data under .local/, unless DATABASE_URL /
// REDIS_URL are given and reachable. Installs Debian's packages when the binaries are missing.
// It stops only what it started itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
const LOCAL = path.join(ROOT, '.local');
const PG_PORT = Number(process.env.BILLFLOW_PG_PORT ?? 54329);
const REDIS_PORT = Number(process.env.BILLFLOW_REDIS_PORT ?? 63790);
const PG_PASSWORD = 'billflow';

export interface LocalServices {
  databaseUrl: string;
  redisUrl: string;
  /** Stops the servers this call started (none when it reused running ones). */
  stop(): Promise<void>;
}

function log(msg: string) {
  if (!process.env.BILLFLOW_QUIET) process.stderr.write(`[services] ${msg}\n`);
}

export function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function urlReachable(url: string): Promise<boolean> {
  try {
    const u = new URL(url);
    const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
    return await portOpen(port, u.hostname || '127.0.0.1', 1500);
  } catch {
    return false;
  }
}

let aptUpdated = false;
/** Installs Debian packages (root only), running `apt-get update` at most once per process. */
export function aptInstall(pkgs: string[]) {
  if (!isRoot()) {
    throw new Error(
      `Missing ${pkgs.join(', ')}: install them with 'sudo apt-get install -y ${pkgs.join(' ')}'`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    log('apt-get update');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    aptUpdated = true;
  }
  log(`apt-get install ${pkgs.join(' ')}`);
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  if (r.status !== 0) throw new Error(`apt-get install ${pkgs.join(' ')} failed (exit ${r.status})`);
}

export function findPgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

/** Runs a command as the postgres OS user when we are root (Postgres refuses to run as root). */
function asPg(cmd: string, args: string[], opts: { stdio?: 'ignore' | 'inherit' } = {}) {
  if (isRoot()) {
    return spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: opts.stdio ?? 'ignore' });
  }
  return spawnSync(cmd, args, { stdio: opts.stdio ?? 'ignore' });
}

export function ensurePgUser() {
  if (!isRoot()) return;
  const r = spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  if (r.status !== 0) execFileSync('useradd', ['--system', '--home', '/var/lib/postgresql', 'postgres']);
}

async function startPostgres(): Promise<{ url: string; stop?: () => void }> {
  const url = `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${PG_PORT}/postgres`;
  if (await portOpen(PG_PORT)) {
    log(`reusing Postgres on 127.0.0.1:${PG_PORT}`);
    return { url };
  }
  let bin = findPgBin();
  if (!bin) {
    aptInstall(['postgresql']);
    bin = findPgBin();
    if (!bin) throw new Error('postgresql installed but no server binary found under /usr/lib/postgresql');
  }
  ensurePgUser();
  const dataDir = path.join(LOCAL, 'pg');
  const runDir = path.join(LOCAL, 'pg-run');
  mkdirSync(LOCAL, { recursive: true });
  chmodSync(LOCAL, 0o755);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initdb ${dataDir}`);
    mkdirSync(dataDir, { recursive: true });
    const pwFile = path.join(LOCAL, 'pg-pw');
    writeFileSync(pwFile, `${PG_PASSWORD}\n`);
    if (isRoot()) execFileSync('chown', ['-R', 'postgres', dataDir, pwFile]);
    const r = asPg(
      path.join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        `--pwfile=${pwFile}`,
        '--auth-host=scram-sha-256',
        '--auth-local=trust',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
      ],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error('initdb failed');
    writeFileSync(
      path.join(dataDir, 'postgresql.auto.conf'),
      `${[
        "listen_addresses = '127.0.0.1'",
        `port = ${PG_PORT}`,
        'max_connections = 400',
        'shared_buffers = 256MB',
        // A transaction left open would hold back every gap-free reader: cut such sessions off.
        "idle_in_transaction_session_timeout = '60s'",
        "unix_socket_directories = ''",
      ].join('\n')}\n`,
    );
    if (isRoot()) execFileSync('chown', ['-R', 'postgres', dataDir]);
  }
  mkdirSync(runDir, { recursive: true });
  if (isRoot()) execFileSync('chown', ['postgres', runDir]);
  // The Unix socket trusts local connections: only the server's owner (and root) may reach it.
  chmodSync(runDir, 0o700);
  log(`starting Postgres on 127.0.0.1:${PG_PORT}`);
  const r = asPg(path.join(bin, 'pg_ctl'), [
    '-D',
    dataDir,
    '-l',
    path.join(runDir, 'postgres.log'),
    '-w',
    '-t',
    '60',
    // Also a Unix socket in .local/pg-run (cheaper than loopback TCP for the product on this host),
    // skipped when the path would be too long for a socket name. The idle-transaction cut-off is
    // given on every start, as docker-compose.yml does, so a data dir made before it was added in
    // postgresql.auto.conf gets it too; so is the port, so that BILLFLOW_PG_PORT changed after the
    // data dir was made is the port it listens on.
    '-o',
    [
      `-c port=${PG_PORT}`,
      '-c idle_in_transaction_session_timeout=60s',
      ...(socketFile(runDir).length < 100 ? [`-k ${runDir}`] : []),
    ].join(' '),
    'start',
  ]);
  if (r.status !== 0) {
    const logTail = existsSync(path.join(runDir, 'postgres.log'))
      ? readFileSync(path.join(runDir, 'postgres.log'), 'utf8').slice(-2000)
      : '';
    throw new Error(`Postgres did not start:\n${logTail}`);
  }
  return {
    url,
    stop: () => {
      asPg(path.join(bin!, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    },
  };
}

export function findRedis(): string | null {
  for (const p of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) if (existsSync(p)) return p;
  return null;
}

async function startRedis(): Promise<{ url: string; stop?: () => void }> {
  const url = `redis://127.0.0.1:${REDIS_PORT}`;
  if (await portOpen(REDIS_PORT)) {
    log(`reusing Redis on 127.0.0.1:${REDIS_PORT}`);
    return { url };
  }
  let bin = findRedis();
  if (!bin) {
    aptInstall(['redis-server']);
    bin = findRedis();
    if (!bin) throw new Error('redis-server installed but not found');
  }
  const dir = path.join(LOCAL, 'redis');
  mkdirSync(dir, { recursive: true });
  const pidFile = path.join(dir, 'redis.pid');
  log(`starting Redis on 127.0.0.1:${REDIS_PORT}`);
  // appendonly: BullMQ jobs must survive a restart ("nothing is ever lost").
  const r = spawnSync(
    bin,
    [
      '--port',
      String(REDIS_PORT),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--daemonize',
      'yes',
      '--pidfile',
      pidFile,
      '--logfile',
      path.join(dir, 'redis.log'),
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('redis-server did not start');
  for (let i = 0; i < 100 && !(await portOpen(REDIS_PORT)); i++)
    await new Promise((res) => setTimeout(res, 50));
  return {
    url,
    stop: () => {
      try {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        if (pid) process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

function socketFile(runDir: string) {
  return path.join(runDir, `.s.PGSQL.${PG_PORT}`);
}

/**
 * The same local database over the Unix socket of the Postgres this project runs (.local/pg-run),
 * or null when `url` is not that server or it has no socket. Same server, same data: only the
 * transport differs, and a socket costs the product less CPU per query than loopback TCP.
 */
export function localSocketUrl(url: string): string | null {
  const u = new URL(url);
  const runDir = path.join(LOCAL, 'pg-run');
  if (u.hostname !== '127.0.0.1' || Number(u.port) !== PG_PORT || !existsSync(socketFile(runDir)))
    return null;
  const socket = new URL(url);
  socket.hostname = 'localhost';
  socket.port = '';
  socket.searchParams.set('host', runDir);
  socket.searchParams.set('port', String(PG_PORT));
  return socket.toString();
}

/** Postgres and Redis for this process: given URLs when reachable, otherwise local servers. */
export async function ensureLocalServices(): Promise<LocalServices> {
  const stops: Array<() => void> = [];
  let databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl && !(await urlReachable(databaseUrl))) {
    throw new Error(`DATABASE_URL is set but nothing answers at ${new URL(databaseUrl).host}`);
  }
  if (!databaseUrl) {
    const pg = await startPostgres();
    databaseUrl = pg.url;
    if (pg.stop) stops.push(pg.stop);
  }
  let redisUrl = process.env.REDIS_URL;
  if (redisUrl && !(await urlReachable(redisUrl))) {
    throw new Error(`REDIS_URL is set but nothing answers at ${new URL(redisUrl).host}`);
  }
  if (!redisUrl) {
    const redis = await startRedis();
    redisUrl = redis.url;
    if (redis.stop) stops.push(redis.stop);
  }
  return {
    databaseUrl,
    redisUrl,
    async stop() {
      for (const s of stops.reverse()) s();
    },
  };
}

/** Creates the database named in the URL when it does not exist yet; returns the URL. */
export async function ensureDatabase(url: string): Promise<string> {
  const { default: pg } = await import('pg');
  const u = new URL(url);
  const name = u.pathname.slice(1) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return url;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
