// Pure rules of the approval screens: money and rates, names, the paging
// footer's page buttons, the sortable columns, relative times and the history's time format. Money
// is shown by formatCurrency (lib/utils.ts): the reader's locale, as every screen.
import { formatCurrency } from '../../../lib/utils';

export const PAGE_SIZES = [5, 10, 25, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 10;

export const SORT_KEYS = [
  'createdAt',
  'companyName',
  'billCount',
  'approvedBillCount',
  'status',
  'priority',
  'totalAmount',
  'approvedAmount',
  'managerName',
] as const;
export type ApprovalSortKey = (typeof SORT_KEYS)[number];
export interface ApprovalSort {
  key: ApprovalSortKey;
  direction: 'asc' | 'desc';
}
export const DEFAULT_SORT: ApprovalSort = { key: 'createdAt', direction: 'desc' };

/** A click on a column: the same column flips its direction; another column starts ascending. */
export function toggleSort(current: ApprovalSort, key: ApprovalSortKey): ApprovalSort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: key === 'createdAt' ? 'desc' : 'asc' };
}

/**
 * The list's status filter, the payment statuses too. 'Approved' keeps matching an
 * approval along the payment path (the server's approved group); each payment status only itself.
 */
export const STATUS_FILTERS = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'EXPIRED',
  'NACHA_PENDING',
  'NACHA_GENERATED',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
] as const;

/** The list's payment filter: what holds the payment, in the URL's and REST's words. */
export const PROBLEM_FILTERS = [
  { value: 'any', label: 'Needs attention' },
  { value: 'file', label: 'NACHA file stuck' },
  { value: 'sync', label: 'QuickBooks sync failed' },
  { value: 'waiting', label: 'Waiting for the next banking day' },
] as const;

/** A URL's or a select's word as the list's problem filter; '' when it is not one. */
export function problemFilterOf(value: string | null | undefined): string {
  const v = (value ?? '').trim().toLowerCase();
  return PROBLEM_FILTERS.some((p) => p.value === v) ? v : '';
}

/** A URL's status as the list's status filter; '' when it is not one. */
export function statusFilterOf(value: string | null | undefined): string {
  const v = (value ?? '').trim().toUpperCase();
  return (STATUS_FILTERS as readonly string[]).includes(v) ? v : '';
}
export const PRIORITIES = ['URGENT', 'HIGH', 'MEDIUM', 'LOW'] as const;

/** The statuses from which Regenerate NACHA is offered. */
export const NACHA_STATUSES = [
  'APPROVED',
  'NACHA_GENERATED',
  'NACHA_PENDING',
  'BANK_UPLOADED',
  'PAYMENT_COMPLETED',
] as const;

/** Once the bank has the file, a second one would pay again: Regenerate shows, disabled, saying so. */
export const AT_BANK_STATUSES = ['BANK_UPLOADED', 'PAYMENT_COMPLETED'] as const;
export const REGENERATE_AT_BANK =
  'The NACHA file is already at the bank: a second file would pay the vendors twice';

/** Why Regenerate NACHA cannot run for an approval in this status; null when it can. */
export function regenerateBlockedReason(status: string): string | null {
  return (AT_BANK_STATUSES as readonly string[]).includes(status) ? REGENERATE_AT_BANK : null;
}

/** Whether a bill on /bills may go in a new approval: not in an open one, not refused. */
export function billSelectable(b: { inOpenApproval: boolean; refusedReason?: string | null }): boolean {
  return !b.inOpenApproval && !b.refusedReason;
}

/** A share in whole per cent (0 when the whole is 0): 1 of 3 → 33. */
export function percent(part: number, whole: number): number {
  if (!whole || whole <= 0) return 0;
  return Math.round((part / whole) * 100);
}

/** The ids of a comma-separated list (billIds, approvedBillIds). */
export function idList(csv: string | null | undefined): string[] {
  return (csv ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** 'Approval #' and the first 8 characters of the id. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** Manager column: name, else e-mail, else 'Not assigned'. */
export function managerLabel(name: string | null | undefined, email: string | null | undefined): string {
  return name?.trim() || email?.trim() || 'Not assigned';
}

export function personName(p: { firstName: string | null; lastName: string | null } | null | undefined) {
  if (!p) return null;
  return [p.firstName, p.lastName].filter(Boolean).join(' ').trim() || null;
}

/** Words written in capitals wherever a code contains them: NACHA is an acronym, never 'Nacha'. */
const ACRONYMS: Record<string, string> = { nacha: 'NACHA' };

/** 'PENDING' → 'Pending', 'NACHA_GENERATED' → 'NACHA Generated'. */
export function titleCase(value: string): string {
  return value
    .toLowerCase()
    .split('_')
    .map((w) => ACRONYMS[w] ?? w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/**
 * The footer's numbered page buttons: up to 5, a window around the current page that stays inside
 * 1..totalPages (page 1 of 12 → 1-5, page 7 → 5-9, page 12 → 8-12).
 */
export function pageButtons(page: number, totalPages: number, max = 5): number[] {
  const total = Math.max(1, totalPages);
  const count = Math.min(max, total);
  let start = Math.max(1, Math.min(page - Math.floor(count / 2), total - count + 1));
  if (!Number.isFinite(start)) start = 1;
  return Array.from({ length: count }, (_, i) => start + i);
}

/** 'Page p of n • Total: t approvals' (or bills; '1 approval' in the singular). */
export function pageSummary(page: number, totalPages: number, total: number, noun = 'approvals'): string {
  return `Page ${page} of ${Math.max(1, totalPages)} • Total: ${total} ${total === 1 ? noun.replace(/s$/, '') : noun}`;
}

/** The rows of one page of a list held whole in memory (page 1-based, clamped to the last page). */
export function pageOf<T>(
  rows: readonly T[],
  page: number,
  size: number,
): { rows: T[]; page: number; totalPages: number } {
  const totalPages = Math.max(1, Math.ceil(rows.length / size));
  const p = Math.min(Math.max(1, page), totalPages);
  return { rows: rows.slice((p - 1) * size, p * size), page: p, totalPages };
}

export const RECIPIENTS_MAX = 20;
// The server's rule (zod's e-mail check, at most 254 characters), so the dialog refuses what it would.
const EMAIL =
  /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/**
 * Recipients typed as comma-, semicolon- or line-separated addresses: trimmed, lower-cased, each
 * once. An error names the first address the server would refuse.
 */
export function parseRecipients(text: string): { recipients: string[]; error: string | null } {
  const recipients = [
    ...new Set(
      text
        .split(/[\n,;]+/)
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const bad = recipients.find((r) => r.length > 254 || !EMAIL.test(r));
  if (bad) return { recipients, error: `Not a valid e-mail address: ${bad}` };
  if (recipients.length > RECIPIENTS_MAX)
    return { recipients, error: `At most ${RECIPIENTS_MAX} recipients` };
  return { recipients, error: null };
}

/** '5 minutes', '2 hours', '3 days' (for 'Created {relative} ago'). */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 24) return unit(hours, 'hour');
  const days = Math.round(hours / 24);
  if (days < 30) return unit(days, 'day');
  const months = Math.round(days / 30);
  if (months < 12) return unit(months, 'month');
  return unit(Math.round(days / 365), 'year');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The history's 'MMM d, HH:mm' in local time. */
export function historyTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** How the server writes an amount in a history step's plain text (en-US, for any client). */
const PLAIN_TEXT_MONEY = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/**
 * A history step's text with its amounts in the reader's format: the server's `details` is plain
 * en-US text, and the step's amounts come beside it as numbers, so each is put in the locale's
 * format where the text says it.
 */
export function historyDetails(
  step: { details: string | null; amount: number | null; threshold: number | null },
  locale?: string,
): string | null {
  if (!step.details) return null;
  let text = step.details;
  for (const n of [step.amount, step.threshold])
    if (n !== null) text = text.replaceAll(PLAIN_TEXT_MONEY.format(n), formatCurrency(n, 'USD', locale));
  return text;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return 'N/A';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return 'N/A';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** Whether the second stat row shows (when processed or approved bill data exists). */
export function hasBillFigures(s: {
  processedBills: number;
  approvedBills: number;
  processedTotalAmount: number;
  approvedTotalAmount: number;
}): boolean {
  return (
    s.processedBills > 0 || s.approvedBills > 0 || s.processedTotalAmount > 0 || s.approvedTotalAmount > 0
  );
}

/** The bulk action's summary toast. */
export function bulkSummary(verb: 'approved' | 'rejected', s: { succeeded: number; failed: number }): string {
  const ok = `${s.succeeded} ${s.succeeded === 1 ? 'approval' : 'approvals'} ${verb}`;
  return s.failed > 0 ? `${ok}, ${s.failed} failed` : ok;
}
