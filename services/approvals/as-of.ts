// Time travel: an approval as it stood after one event of its stream. The stream is folded in memory
// with the approvals projection's own row logic (evolveApprovalRow) and the decider's evolve, then
// answered through the detail's mapping (toDtos, withDetail), so the past reads exactly as the detail
// would have read then. Names (company, manager, people) come from today's read models, as the
// detail's do: the log keeps ids, not names. Personal fields whose subject was forgotten stay
// unreadable and are named in `erased`.
import { sql } from 'kysely';
import type { z } from 'zod';
import { evolveApprovalRow } from '../../projections/approvals/approvals.js';
import type { ApprovalsTable } from '../../projections/approvals/tables.js';
import type { ApprovalAsOf, ApprovalAsOfPoint, ApprovalStep } from '../../schema/approvals/as-of-answers.js';
import { ApprovalAsOfInput } from '../../schema/approvals/as-of-answers.js';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import type { StoredEvent } from '../eventstore/port.js';
import { AppError, parseInput } from '../shared/errors.js';
import { approvalDecider } from './approval-decider.js';
import {
  approvalStream,
  CHECKPOINT,
  decodedUpTo,
  decodeStep,
  type Fold,
  type KeptStream,
} from './as-of-streams.js';
import { withDetail } from './detail.js';
import { type ApprovalRow, parseApprovalId, toDtos } from './rows.js';

export type ApprovalAsOfAnswer = z.infer<typeof ApprovalAsOf>;
export type ApprovalStepAnswer = z.infer<typeof ApprovalStep>;
export type ApprovalAsOfQuery = z.infer<typeof ApprovalAsOfInput>;

/**
 * Who may look into an approval's past: ADMIN and MODERATOR (the permission table's 'approvals.audit').
 */
export const AUDIT_PERMISSION = 'approvals.audit' as const;

/** When an event happened: its own `at` (what the read models use), else when the log took it. */
export function stepTime(e: StoredEvent): string {
  const at = (e.data as { at?: unknown } | null)?.at;
  return typeof at === 'string' ? at : e.createdAt.toISOString();
}

export const stepsOf = (events: readonly StoredEvent[]): ApprovalStepAnswer[] =>
  events.map((e) => ({ position: e.position, at: stepTime(e), type: e.type, version: e.streamVersion }));

/**
 * How many of the stream's events are in the past asked for: those at or before the position, or at
 * or before the time (0: the approval did not exist yet). Neither: all of them (now).
 */
export function cutOf(events: readonly StoredEvent[], query: ApprovalAsOfQuery): number {
  if (query.position !== undefined && query.at !== undefined)
    throw new AppError('VALIDATION', 'Give a position or a time (at), not both');
  let n = 0;
  if (query.position !== undefined) {
    const p = query.position;
    // Positions of one store order as text; an epoch-less one sorts before an epoch's, as the log does.
    while (n < events.length && events[n].position <= p) n++;
  } else if (query.at !== undefined) {
    const t = Date.parse(query.at);
    while (n < events.length && Date.parse(stepTime(events[n])) <= t) n++;
  } else n = events.length;
  return n;
}

export type FoldedApproval = Fold;

const NOTHING: Fold = { count: 0, row: undefined, state: approvalDecider.initialState(), erased: [] };

/**
 * The pure fold: the first `count` events, decoded (older versions upcast by the schema registry),
 * through the projection's row logic and the decider, from `from` (a fold of fewer of the same
 * events) or from nothing. Events of types neither knows leave both as they were, as they do live.
 * `keep` is handed the fold after each CHECKPOINT-th event.
 */
export function foldApproval(
  events: readonly StoredEvent[],
  count = events.length,
  decoded: readonly ApprovalEvent[] = [],
  from: Fold = NOTHING,
  keep?: (fold: Fold) => void,
): Fold {
  let { row, state } = from;
  const erased = new Set(from.erased);
  for (let i = from.count; i < count; i++) {
    const stored = events[i];
    for (const f of stored.erased ?? []) erased.add(f);
    const event = decoded[i] ?? decodeStep(stored);
    row = evolveApprovalRow(row, event) ?? row;
    // A type the decider does not know (one defined elsewhere, read by name) leaves the state as it was.
    state = approvalDecider.evolve(state, event) ?? state;
    if (keep && (i + 1) % CHECKPOINT === 0) keep({ count: i + 1, row, state, erased: [...erased].sort() });
  }
  return { count, row, state, erased: [...erased].sort() };
}

/** The fold of a kept stream's first `count` events, from its nearest checkpoint (kept for the next). */
function foldKept(stream: KeptStream, count: number): Fold {
  let start = NOTHING;
  for (let c = Math.floor(count / CHECKPOINT) * CHECKPOINT; c > 0 && start === NOTHING; c -= CHECKPOINT)
    start = stream.checkpoints.get(c) ?? NOTHING;
  return foldApproval(stream.events, count, decodedUpTo(stream, count), start, (f) =>
    stream.checkpoints.set(f.count, f),
  );
}

/** The row with the joins the reads add (company name, manager), from today's read models. */
async function joinedRow(app: AppServices, row: ApprovalsTable): Promise<ApprovalRow> {
  // One round trip for both (the detail's query joins them the same way).
  const { rows } = await sql<
    Pick<ApprovalRow, 'company_name' | 'm_first' | 'm_last' | 'm_email' | 'm_phone' | 'm_title'>
  >`
    SELECT (SELECT name FROM companies WHERE id = ${row.company_id}) AS company_name,
      m.first_name AS m_first, m.last_name AS m_last, m.email AS m_email, m.phone AS m_phone, m.title AS m_title
    FROM (SELECT 1) one
    LEFT JOIN managers m ON m.id = ${row.manager_id} AND m.deleted_at IS NULL`.execute(app.db);
  return { ...row, ...rows[0] } as ApprovalRow;
}

/**
 * GET /approvals/{id}/as-of: the approval after the event at `position`, or the last event at or
 * before `at` (neither: now), with every step of its stream. Absent or outside the reader's companies
 * is not found, as for the detail; a deleted approval's past stays readable (an auditor's question).
 * A position or time before the approval existed is refused (400).
 */
export async function approvalAsOf(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<ApprovalAsOfAnswer> {
  authorize(actor, AUDIT_PERMISSION);
  const approvalId = parseApprovalId(id);
  const query = parseInput(ApprovalAsOfInput, input);
  const [stream, scope] = await Promise.all([approvalStream(app, approvalId), companyScope(app, actor)]);
  const events = stream.events;
  const companyId = (events[0]?.data as { companyId?: unknown } | undefined)?.companyId;
  if (events.length === 0 || typeof companyId !== 'number' || !inScope(scope, companyId))
    throw new AppError('NOT_FOUND', 'Approval not found');
  const count = cutOf(events, query);
  if (count === 0)
    throw new AppError('VALIDATION', 'The approval did not exist yet at that point', [
      { field: query.position !== undefined ? 'position' : 'at', message: 'Before the approval was created' },
    ]);
  const { row, state, erased } = foldKept(stream, count);
  if (!row) throw new AppError('NOT_FOUND', 'Approval not found');
  const [dto] = await toDtos(app, [await joinedRow(app, row)]);
  const last = events[count - 1];
  const asOf: z.infer<typeof ApprovalAsOfPoint> = {
    position: last.position,
    at: stepTime(last),
    eventType: last.type,
    step: count,
    steps: events.length,
    deleted: row.deleted,
  };
  // The bank's facts live on the payments module's streams: those recorded after this point are left out.
  const point = count === events.length ? null : last.createdAt;
  return {
    approval: await withDetail(app, dto, state, point),
    asOf,
    steps: stepsOf(events),
    erased: [...erased],
  };
}
