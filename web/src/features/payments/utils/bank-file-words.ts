// How the bank files page says things in plain words: a file's outcome, a parked entry, an open
// notification of change and a return.
import { formatCurrency } from '../../../lib/utils';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const cents = (amountCents: number) => formatCurrency(amountCents / 100);

/** "2 returns, 1 notification of change: 3 applied, 0 already on record, 1 parked for a person". */
export function outcomeSentence(o: {
  appliedNow: boolean;
  returns: number;
  corrections: number;
  applied: number;
  alreadyApplied: number;
  parked: readonly unknown[];
}): string {
  const read = `${plural(o.returns, 'return')}, ${plural(o.corrections, 'notification of change', 'notifications of change')}`;
  const done = `${o.applied} applied, ${o.alreadyApplied} already on record, ${o.parked.length} parked for a person`;
  const sentence = `${read}: ${done}`;
  return o.appliedNow ? sentence : `This file was read before; nothing changed now. ${sentence}`;
}

/** "line 12 · R03 · $125.00 · no entry of a Billflow file has this trace number". */
export function parkedLine(p: {
  line: number;
  kind: string;
  code: string | null;
  amountCents: number;
  reason: string;
}) {
  const parts = [`line ${p.line}`];
  if (p.code) parts.push(p.code);
  // What is neither a return nor a correction carries no amount of its own.
  if (p.kind.toLowerCase() !== 'other') parts.push(cents(p.amountCents));
  parts.push(p.reason);
  return parts.join(' · ');
}

const SHORT_DAY = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** '2026-12-15' → 'Dec 15'. */
export function shortDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? day : SHORT_DAY.format(d);
}

/** "C01 for Paper Co, due Dec 15 — overdue". */
export function correctionLine(c: { code: string; vendorName: string; dueBy: string; overdue: boolean }) {
  return `${c.code} for ${c.vendorName}, due ${shortDay(c.dueBy)}${c.overdue ? ' — overdue' : ''}`;
}

/** "R03 for Paper Co, $125.00". */
export function returnLine(r: { code: string; vendorName: string; amountCents: number }) {
  return `${r.code} for ${r.vendorName}, ${cents(r.amountCents)}`;
}

export { cents as formatCents };

export const SOURCE_LABEL: Record<string, string> = {
  UPLOAD: 'Uploaded',
  SFTP: 'Bank’s outbox',
  CLI: 'Command line',
};

export const STATUS_LABEL: Record<string, string> = {
  RECEIVED: 'Being applied',
  APPLIED: 'Applied',
  REFUSED: 'Refused',
};

/** An instant as the reader's short date: 'Dec 6'. */
export function shortDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? '—'
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}
