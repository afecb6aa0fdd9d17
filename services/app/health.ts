// System health (spec 1 §3): status, uptime, version, database, api, memory and disk.
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { type Actor, authorize } from '../auth/permissions.js';
import type { AppServices } from './context.js';

export const VERSION: string = process.env.npm_package_version ?? '0.1.0';

export interface Usage {
  used: number;
  total: number;
  percentage: number;
}

export interface SystemHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  uptime: number;
  version: string;
  timestamp: string;
  database: { status: 'connected' | 'disconnected'; responseTime: number | null };
  redis: { status: 'connected' | 'disconnected'; responseTime: number | null };
  api: { status: 'operational'; responseTime: number };
  memory: Usage;
  disk: Usage;
}

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

export async function detailedHealth(app: AppServices, actor: Actor | null): Promise<SystemHealth> {
  authorize(actor, 'health.read');
  const started = performance.now();
  const [dbTime, redisTime, disk] = await Promise.all([
    timed(() => app.pool.query('SELECT 1')),
    timed(() => app.redis.ping()),
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
  };
}
