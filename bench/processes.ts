// Starts the product's roles as separate processes, as deployed (docker-compose.yml): the benchmark
// client then measures from outside, and the gateway and projector each get their own event loop.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { NODE_FLAGS } from '../services/shared/node-flags.js';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface RoleProcess {
  url: string | null;
  pid: number;
  /** Signals the process (SIGKILL for a crash, SIGSTOP/SIGCONT for a frozen host). */
  kill(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** Children still running: ended when this process exits, even by a crash, so none is left behind. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export function startRole(role: 'gateway' | 'projector' | 'worker' | 'all', env: Record<string, string>) {
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${ROOT}/.local/prof/${role}`]
    : [];
  // BENCH_QCOUNT=1: statements sent to Postgres per process (bench/query-count.mjs).
  // BENCH_NODE_FLAGS_GATEWAY='--trace-gc' (and _PROJECTOR, _WORKER): V8 flags for one role, to see
  // what its heap or compiler does; BENCH_STDOUT=1 shows what the roles print (the trace).
  const extra = process.env[`BENCH_NODE_FLAGS_${role.toUpperCase()}`]?.split(' ').filter(Boolean) ?? [];
  const qc = process.env.BENCH_QCOUNT ? ['--import', './bench/query-count.mjs'] : [];
  const child: ChildProcess = spawn(
    process.execPath,
    [...NODE_FLAGS, ...extra, ...profile, ...qc, '--import', 'tsx', 'services/main.ts'],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, ROLE: role, PORT: '0', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise<RoleProcess>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${role} did not start: ${out} ${err}`)), 60_000);
    const onExit = (code: number | null) => reject(new Error(`${role} exited ${code}: ${err}`));
    child.once('exit', onExit);
    child.stderr?.on('data', (d) => {
      err += d;
      // BENCH_STDERR=1 shows what the product's processes log (a crash under load, say).
      if (process.env.BENCH_STDERR) process.stderr.write(`[${role}] ${d}`);
    });
    child.stdout?.on('data', (d) => {
      if (process.env.BENCH_STDOUT) process.stderr.write(`[${role}] ${d}`);
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m && !/running/.test(out)) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        url: m ? m[1] : null,
        pid: child.pid!,
        kill: (signal) => {
          child.kill(signal);
        },
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * Deletes a bench run's keys from the shared local Redis (its REDIS_PREFIX): the approvals part
 * alone leaves 100,000 delayed expiry jobs, and a Redis that grows by a few hundred MB per run (with
 * its append-only file rewritten meanwhile) slowed every later part on the same machine.
 */
export async function dropRedisPrefix(redisUrl: string, prefix: string) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** What a sign-in answers: the tokens and the user. */
export interface SignedIn {
  tokens: { accessToken: string; refreshToken: string };
  user: { id: number; email: string; role: string };
}

/**
 * Signs in as the first admin once it can: the gateway creates the admin at its start, but the
 * users read model that a sign-in reads is the projector's, a separate process that may not have
 * taken the admin's events in yet. Retried every 200 ms until the answer carries tokens, for at
 * most `timeoutMs`; each miss counts as a failed sign-in, so the parts' processes run with a high
 * LOGIN_MAX_FAILURES (benchEnv), and a 429 (locked out) ends the wait at once.
 */
export async function signInWhenReady(
  baseUrl: string,
  email: string,
  password: string,
  timeoutMs = 60_000,
): Promise<SignedIn> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  for (;;) {
    const res = await fetch(new URL('/api/auth/login', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const text = await res.text();
    const body = (() => {
      try {
        return JSON.parse(text);
      } catch {
        return null;
      }
    })();
    if (res.ok && body?.data?.tokens?.accessToken) return body.data as SignedIn;
    last = `${res.status} ${text.slice(0, 200)}`;
    if (res.status === 429 || performance.now() > deadline)
      throw new Error(`the admin ${email} could not sign in within ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
