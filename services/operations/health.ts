// System health: status, uptime, version, database, api, memory and disk.
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { Readiness, SystemHealth, Usage } from '../../schema/operations/answers.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { logHealth } from './operations.js';

export const VERSION: string = process.env.npm_package_version ?? '0.1.0';

// The answers are written once in schema/operations/answers.ts; these names stay for their users.
export type { Readiness, SystemHealth, Usage };

const usage = (used: number, total: number): Usage => ({
  used,
  total,
  percentage: total > 0 ? Math.round((used / total) * 1000) / 10 : 0,
});

async function timed(fn: () => Promise<unknown>): Promise<number | null> {
  const t = performance.now();
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000)),
    ]);
    return Math.round((performance.now() - t) * 10) / 10;
  } catch {
    return null;
  }
}

/** Round trip to Redis; null at once while the client is not connected (no wait on a reconnect). */
function redisRoundTrip(app: AppServices): Promise<number | null> {
  if (app.redis.status !== 'ready') return Promise.resolve(null);
  return timed(() => app.redis.ping());
}

/** For load balancers: ready while Postgres answers; Redis being down only degrades the service. */
export async function readiness(app: AppServices): Promise<Readiness> {
  const [dbTime, redisTime] = await Promise.all([
    timed(() => app.pool.query('SELECT 1')),
    redisRoundTrip(app),
  ]);
  return {
    status: dbTime === null ? 'unavailable' : 'ready',
    degraded: redisTime === null,
    database: dbTime === null ? 'disconnected' : 'connected',
    redis: redisTime === null ? 'disconnected' : 'connected',
  };
}

export async function detailedHealth(app: AppServices, actor: Actor | null): Promise<SystemHealth> {
  authorize(actor, 'health.read');
  const started = performance.now();
  const logFigures = logHealth(app); // runs alongside the checks below
  const [dbTime, redisTime, disk] = await Promise.all([
    timed(() => app.pool.query('SELECT 1')),
    redisRoundTrip(app),
    statfs(process.cwd()).catch(() => null),
  ]);
  const status = dbTime === null ? 'unhealthy' : redisTime === null ? 'degraded' : 'healthy';
  const diskTotal = disk ? disk.blocks * disk.bsize : 0;
  const diskUsed = disk ? (disk.blocks - disk.bfree) * disk.bsize : 0;
  return {
    status,
    uptime: Math.floor((Date.now() - app.startedAt) / 1000),
    version: VERSION,
    timestamp: new Date().toISOString(),
    database: { status: dbTime === null ? 'disconnected' : 'connected', responseTime: dbTime },
    redis: { status: redisTime === null ? 'disconnected' : 'connected', responseTime: redisTime },
    api: { status: 'operational', responseTime: Math.round((performance.now() - started) * 10) / 10 },
    memory: usage(os.totalmem() - os.freemem(), os.totalmem()),
    disk: usage(diskUsed, diskTotal),
    ...(await logFigures),
  };
}
