// GET /api/health/detailed (spec 1 §3 System health, §7), refetched every 30 s by the dashboard.
import { api } from '../../../lib/api-client';

export interface Usage {
  used: number;
  total: number;
  percentage: number;
}

export interface ServiceStatus {
  status: string;
  responseTime: number | null;
}

export interface SystemHealth {
  status: string;
  /** Seconds. */
  uptime: number;
  version: string;
  database?: ServiceStatus;
  api?: ServiceStatus;
  memory?: Usage;
  disk?: Usage;
}

export const SYSTEM_HEALTH_FALLBACK_MESSAGE = 'Failed to fetch system health';

export async function getSystemHealth(signal?: AbortSignal): Promise<SystemHealth> {
  const body = await api.get<SystemHealth>('/api/health/detailed', {
    signal,
    fallbackMessage: SYSTEM_HEALTH_FALLBACK_MESSAGE,
  });
  if (!body.data) throw new Error(SYSTEM_HEALTH_FALLBACK_MESSAGE);
  return body.data;
}
