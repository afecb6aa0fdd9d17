// GET /api/dashboard/approvals-by-status (issue 12 §8): approvals created per day (UTC) over the last
// 30 days, by their status now.
import { api } from '../../../lib/api-client';

export interface ApprovalsByDay {
  date: string;
  pending: number;
  approved: number;
  rejected: number;
  expired: number;
  total: number;
}

export async function getApprovalsByStatus(signal?: AbortSignal): Promise<ApprovalsByDay[]> {
  const res = await api.get<ApprovalsByDay[]>('/api/dashboard/approvals-by-status', {
    query: { days: 30 },
    signal,
    fallbackMessage: 'Failed to fetch approvals by status',
  });
  return Array.isArray(res.data) ? res.data : [];
}
