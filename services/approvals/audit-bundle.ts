// One approval's audit bundle, for an auditor to check on their own (tools/audit-verifier.mjs), made by
// `npm run audit -- export <approvalId>` and by the detail's download (GET …/audit-bundle): its events
// as stored (personal fields still sealed), each with its hash, its leaf's Merkle audit path to the
// root of the anchor that covers it, those anchors as published, and the events opened for reading.
// Recorded on the approval's stream first (ApprovalAuditExported), and the log anchored after that,
// up to that event: every event in the bundle is covered, and the bundle ends with its own export,
// the stream's head that the anchor covering the export records. The verifier holds a bundle to that
// head; what the approval gets later belongs to the next bundle.
// The view gives, per event, the salt of its sealed fields' commitments (personal-data.ts), so the
// verifier can check each opened personal value against the commitment hashed into the event.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { decodeEvent } from '../../schema/shared/events.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { anchorFile, readPublished } from '../eventstore/anchor-publish.js';
import { type Anchor, readAnchors, readRange, writeAnchors } from '../eventstore/anchors.js';
import { canonicalJson } from '../eventstore/chain.js';
import { auditPaths } from '../eventstore/merkle.js';
import { type EventStore, START, type StoredEvent } from '../eventstore/port.js';
import type { TailWitness } from '../eventstore/tail-witness.js';
import { PersonalDataStore } from '../privacy/personal-data.js';
import { AppError } from '../shared/errors.js';
import { AUDIT_PERMISSION } from './as-of.js';
import { parseApprovalId } from './rows.js';

export const BUNDLE_FORMAT = 'billflow-audit-bundle/1';

export interface BundleEvent {
  position: string;
  streamId: string;
  version: number;
  id: string;
  type: string;
  schemaVersion: number;
  /** As stored: personal fields sealed ({ pii: … }). */
  data: unknown;
  metadata: unknown;
  createdAt: string;
  hash: string;
  proof: { anchor: number; leafIndex: number; path: string[] };
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  approvalId: string;
  exportedAt: string;
  database: string;
  events: BundleEvent[];
  /** The anchors the proofs lead to, as published (the file's lines). */
  anchors: Anchor[];
  /** The same events opened with the keys (erased fields shown as erased), checked by the verifier. */
  view: ViewEntry[];
}

export interface ViewEntry {
  version: number;
  type: string;
  data: unknown;
  erased?: readonly string[];
  /** The salt of the event's commitments: present when it has some and its subject's key is held. */
  salt?: string;
  /**
   * True when the data as read today is not the stored event opened (an older schema version upcast,
   * a default filled in): the verifier then reports the fields it cannot match as unverified.
   */
  reshaped?: true;
}

/**
 * `raw`: the store without the personal-data wrapper (events as stored); `opened`: with it.
 * `witness`: the running app's tail witness, trimmed by the anchor this writes as the anchor job does.
 */
export async function exportApproval(
  pool: pg.Pool,
  stores: { raw: EventStore; opened: EventStore },
  approvalId: string,
  opts: { byUserId?: number | null; publishTo?: string; now?: Date; witness?: TailWitness | null } = {},
): Promise<Bundle> {
  const streamId = `approval-${approvalId}`;
  const current = await stores.raw.readStream(streamId);
  if (current.version === 0) throw new Error(`No approval ${approvalId}`);
  const companyId = (current.events[0].data as { companyId: number }).companyId;
  const at = (opts.now ?? new Date()).toISOString();
  // Raw: the event has no personal field to seal.
  const exported = await stores.raw.append(
    streamId,
    [
      {
        id: randomUUID(),
        type: 'ApprovalAuditExported',
        schemaVersion: 1,
        data: { approvalId, companyId, byUserId: opts.byUserId ?? null, at },
        metadata: { userId: opts.byUserId == null ? null : String(opts.byUserId), source: 'audit-export' },
      },
    ],
    current.version,
  );
  const file = opts.publishTo ?? (await anchorFile(pool));
  // The bundle ends with the export's own event.
  const version = exported.nextVersion;
  const covering = (anchors: Anchor[], e: StoredEvent) =>
    anchors.find((a) => a.firstPosition <= e.position && e.position <= a.lastPosition);
  let anchors: Anchor[] = [];
  let events: StoredEvent[] = [];
  // An append of another stream still in flight holds the anchor job's reading back (it never anchors
  // past one): the export's event may need a second run, a moment later.
  for (let tries = 1; ; tries++) {
    // Anchored up to the export's event, so that its anchor records it as the stream's head.
    await writeAnchors(pool, stores.raw, {
      publishTo: file,
      witness: opts.witness ?? null,
      through: exported.position,
    });
    anchors = await readAnchors(pool);
    events = (await stores.raw.readStream(streamId)).events.filter((e) => e.streamVersion <= version);
    if (events.every((e) => covering(anchors, e)) || tries === 5) break;
    await new Promise((r) => setTimeout(r, 50 * tries));
  }
  const byAnchor = new Map<number, StoredEvent[]>();
  for (const e of events) {
    const a = covering(anchors, e);
    if (!a) throw new Error(`event ${streamId}@${e.streamVersion} is not anchored yet: export again`);
    byAnchor.set(a.seq, [...(byAnchor.get(a.seq) ?? []), e]);
  }
  // Another writer of anchors (the anchor job, another export) running between the append and the
  // anchor written here can have covered a later event of the approval in the same anchor: that
  // anchor then records a head past the export, which a bundle ending with the export does not reach.
  const exportEvent = events[events.length - 1];
  const head = anchoredHead(covering(anchors, exportEvent) as Anchor, streamId);
  if (exportEvent?.streamVersion !== version || head !== version)
    throw new AppError(
      'CONFLICT',
      'The approval changed while its audit bundle was being exported. Please export it again.',
    );
  const published = new Map(readPublished(file).anchors.map((a) => [a.seq, a]));
  const proofs = new Map<string, BundleEvent['proof']>();
  for (const [seq, inAnchor] of byAnchor) {
    const i = anchors.findIndex((a) => a.seq === seq);
    const range = await readRange(pool, i > 0 ? anchors[i - 1].lastPosition : START, anchors[i].lastPosition);
    const index = new Map(range.map((r, n) => [r.eventId, n]));
    const leaves = inAnchor.map((e) => index.get(e.id) ?? -1);
    const { paths } = auditPaths(
      range.map((r) => r.hash ?? Buffer.alloc(0)),
      leaves.filter((n) => n >= 0),
    );
    for (const [k, e] of inAnchor.entries())
      proofs.set(e.id, {
        anchor: seq,
        leafIndex: leaves[k],
        path: (paths.get(leaves[k]) ?? []).map((b) => b.toString('hex')),
      });
  }
  const opened = await stores.opened.readStream(streamId);
  const salts =
    stores.opened instanceof PersonalDataStore ? await stores.opened.commitmentSalts(events) : new Map();
  const db = await pool.query<{ db: string }>('SELECT current_database() AS db');
  return {
    format: BUNDLE_FORMAT,
    approvalId,
    exportedAt: at,
    database: db.rows[0].db,
    events: events.map((e) => ({
      position: e.position,
      streamId: e.streamId,
      version: e.streamVersion,
      id: e.id,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      createdAt: e.createdAt.toISOString(),
      hash: e.hash ?? '',
      proof: proofs.get(e.id) ?? { anchor: 0, leafIndex: -1, path: [] },
    })),
    anchors: [...byAnchor.keys()]
      .sort((a, b) => a - b)
      .map((seq) => published.get(seq) ?? (anchors.find((a) => a.seq === seq) as Anchor)),
    view: opened.events.slice(0, version).map((e): ViewEntry => {
      const data = currentShape(e);
      const salt = salts.get(e.id);
      return {
        version: e.streamVersion,
        type: e.type,
        data,
        ...(e.erased?.length ? { erased: e.erased } : {}),
        ...(salt ? { salt } : {}),
        ...(sameJson(data, e.data) ? {} : { reshaped: true }),
      };
    }),
  };
}

/** The last version of the stream that the anchor records (its heads), 0 when it records none. */
function anchoredHead(anchor: Anchor, streamId: string): number {
  return (anchor.heads ?? []).find(([stream]) => stream === streamId)?.[1] ?? 0;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/**
 * The auditor's view in today's shape: an event of an older schema version upcast, as every reader
 * reads it (the stored form, with its old field names, is in `events`). An event this build cannot
 * decode is shown as stored.
 */
function currentShape(e: StoredEvent): unknown {
  try {
    return decodeEvent(e, { sealed: 'absent' }).data;
  } catch {
    return e.data;
  }
}

export const auditBundleFileName = (approvalId: string) => `audit-${approvalId}.json`;

/**
 * GET /approvals/{id}/audit-bundle: the bundle for the caller (ADMIN, MODERATOR: 'approvals.audit'),
 * recorded as theirs. Absent or outside the caller's companies is not found, as for time travel; a
 * deleted approval's record is still exported (an auditor's question).
 */
export async function downloadAuditBundle(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<{ fileName: string; bundle: Bundle }> {
  authorize(actor, AUDIT_PERMISSION);
  const approvalId = parseApprovalId(id);
  const raw = app.store instanceof PersonalDataStore ? app.store.inner : app.store;
  const [first, scope] = await Promise.all([
    raw.readStream(`approval-${approvalId}`, { maxCount: 1 }),
    companyScope(app, actor),
  ]);
  const companyId = (first.events[0]?.data as { companyId?: unknown } | undefined)?.companyId;
  if (typeof companyId !== 'number' || !inScope(scope, companyId))
    throw new AppError('NOT_FOUND', 'Approval not found');
  const bundle = await exportApproval(app.pool, { raw, opened: app.store }, approvalId, {
    byUserId: actor.id,
    witness: app.tailWitness,
  });
  return { fileName: auditBundleFileName(approvalId), bundle };
}
