// The floor under 'command → subscriber': the same hops as the product (client → gateway → Postgres
// commit → projector woken by NOTIFY → read → write with checkpoint → Redis → gateway → WebSocket),
// in the same two processes, with none of the product's code (bench/floor-roles.mjs). What it shows
// is what this host charges for the path itself; the product's figure minus this is ours to cut.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { type CpuGroups, cpuDelta, cpuSnapshot } from './cpu.js';
import { percentile } from './measure.js';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface FloorFigures {
  rate: number;
  commands: number;
  received: number;
  p50: number;
  p95: number;
  p99: number;
  /** CPU ms over the counted phase per group. */
  cpu: Record<string, number>;
}

function startFloorRole(role: 'gateway' | 'projector', env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bench/floor-roles.mjs'), role], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise<{ url: string | null; pid: number; stop(): void }>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.once('exit', (code) => reject(new Error(`floor ${role} exited ${code}: ${err}`)));
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m && !/running/.test(out)) return;
      resolve({ url: m ? m[1] : null, pid: child.pid!, stop: () => child.kill('SIGKILL') });
    });
  });
}

export async function benchFloor(
  databaseUrl: string,
  redisUrl: string,
  rates: number[],
  seconds: number,
  warmupSeconds = 3,
): Promise<FloorFigures[]> {
  const setup = new pg.Client({ connectionString: databaseUrl });
  await setup.connect();
  await setup.query(`CREATE TABLE IF NOT EXISTS floor_events (id bigserial PRIMARY KEY, marker text NOT NULL);
    CREATE TABLE IF NOT EXISTS floor_rows (id bigint PRIMARY KEY, marker text NOT NULL);
    CREATE TABLE IF NOT EXISTS floor_checkpoint (position bigint NOT NULL);
    INSERT INTO floor_checkpoint SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM floor_checkpoint);`);
  await setup.end();
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, FLOOR_PREFIX: `floor_${process.pid}` };
  const projector = await startFloorRole('projector', env);
  const gateway = await startFloorRole('gateway', env);
  const out: FloorFigures[] = [];
  try {
    for (const rate of rates) {
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      const ws = new WebSocket(gateway.url!.replace(/^http/, 'ws'));
      await new Promise((r) => ws.once('open', r));
      ws.on('message', (data) => {
        const now = performance.now();
        for (const marker of JSON.parse(String(data)) as string[]) {
          const t = sentAt.get(marker);
          if (t === undefined) continue;
          latencies.push(now - t);
          sentAt.delete(marker);
        }
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const url = new URL(`${gateway.url}/cmd`);
      const groups: CpuGroups = {
        gateway: [gateway.pid],
        projector: [projector.pid],
        postgres: { named: 'postgres' },
        redis: { named: 'redis-server' },
      };
      let before: Record<string, number> = {};
      const warmup = rate * warmupSeconds;
      const total = rate * seconds;
      const start = performance.now();
      const inFlight: Promise<unknown>[] = [];
      for (let n = 0; n < warmup + total; n++) {
        const wait = start + (n * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (n === warmup) before = cpuSnapshot(groups);
        const marker = n >= warmup ? `L${rate}-${n}` : `W${rate}-${n}`;
        if (n >= warmup) sentAt.set(marker, performance.now());
        const body = JSON.stringify({ marker });
        inFlight.push(
          new Promise<void>((resolve, reject) => {
            const req = http.request(
              url,
              {
                method: 'POST',
                agent,
                headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
              },
              (res) => {
                res.resume();
                res.on('end', () => resolve());
              },
            );
            req.on('error', reject);
            req.end(body);
          }),
        );
      }
      await Promise.all(inFlight);
      agent.destroy();
      const deadline = performance.now() + 5000;
      while (sentAt.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const cpu = cpuDelta(before, cpuSnapshot(groups));
      ws.close();
      const sorted = latencies.sort((a, b) => a - b);
      out.push({
        rate,
        commands: total,
        received: latencies.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        cpu,
      });
    }
  } finally {
    gateway.stop();
    projector.stop();
  }
  return out;
}
