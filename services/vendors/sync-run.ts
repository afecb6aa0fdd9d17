// The vendor sync itself, as the job runs it (workers/vendors/sync-job.ts): reads the company's
// QuickBooks vendors (Change Data Capture after a whole read, else page by page), cleans each, records
// it on its own stream, reports progress on the change channel, and stops on a throttle or an outage
// where the job can go on from later.
import type { VendorSyncProgress } from '../../schema/vendors/answers.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { CDC_MAX_OBJECTS, CdcMarks, cdcRows, qbTime } from '../quickbooks/cdc-marks.js';
import { cleanQbId, cleanQbText } from '../quickbooks/clean.js';
import { QbApiError } from '../quickbooks/client.js';
import { inParallel } from '../shared/parallel.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import { vendorSyncDecider } from './vendor-sync-decider.js';

/** Vendor ids the screens show: a Postgres sequence, whatever event store runs. */
export const VENDOR_IDS_SEQUENCE = 'vendor_ids';

export type SyncProgress = VendorSyncProgress;

interface QbVendor {
  Id: string;
  DisplayName?: string;
  CompanyName?: string;
  PrimaryEmailAddr?: { Address?: string };
  PrimaryPhone?: { FreeFormNumber?: string };
  Active?: boolean;
}

/** Where a paused vendor sync goes on: the page's start position and the counts before it. */
export interface VendorSyncResume {
  start: number;
  synced: number;
  failed: number;
  /** QuickBooks' time when the whole read began (epoch ms): the next sync's CDC mark. */
  since?: number | null;
}

/** How the job runs a sync: from where an earlier run stopped, and whether it may stop and go on later. */
export interface VendorSyncRun {
  resume?: VendorSyncResume;
  /**
   * A transient QuickBooks failure (throttle, time-out, 5xx): keeps `at` and answers when the job
   * goes on (it then throws), or null when it will not (the sync completes with the error).
   */
  pause?: (at: VendorSyncResume, err: QbApiError) => Promise<Date | null>;
}

/** Vendors upserted between two progress notices: a 1,000-vendor page still moves the bar smoothly. */
const SYNC_PROGRESS_STEP = 100;

/** Live progress for the screen's bar: on the change channel, topic `vendorsync` (best effort). */
async function announce(app: AppServices, p: SyncProgress) {
  const notice = { topic: 'vendorsync', id: p.syncId, data: { ...p } };
  await app.redis.publish(`${app.config.REDIS_PREFIX}:changes`, JSON.stringify([notice])).catch(() => {});
}

/**
 * Intuit answers `select * from Vendor` with the active vendors only, and a vendor deleted in
 * QuickBooks becomes inactive: the sync asks for both, so a vendor made inactive there is marked
 * inactive here (blogs.intuit.com/2014/03/20/advanced-sql-queries; minimul/qbo_api#111).
 */
const EVERY_VENDOR = 'where Active IN (true,false)';

/**
 * The job: pages through the company's QuickBooks vendors (`limit` a page from `offset`), upserts
 * each as a command whose id derives from the sync, so a job that runs again appends nothing twice,
 * and completes the sync with its counts. QuickBooks' 429 and 5xx are retried by the client.
 */
export async function runVendorSync(
  app: AppServices,
  sync: { syncId: string; companyId: number; limit: number; offset: number },
  ctx: CommandContext,
  run: VendorSyncRun = {},
): Promise<{ synced: number; failed: number; error: string | null }> {
  const { syncId, companyId, limit } = sync;
  let synced = run.resume?.synced ?? 0;
  let failed = run.resume?.failed ?? 0;
  let total: number | null = null;
  let error: string | null = null;
  // Where the sync stands at the start of the page in hand: a throttled job resumes there.
  let saved: VendorSyncResume = { start: run.resume?.start ?? sync.offset + 1, synced, failed };
  /** The bar's progress as it stands now. */
  const report = () =>
    announce(app, { syncId, companyId, processed: synced + failed, synced, failed, total, done: false });
  try {
    const { client, isSandbox, realmId, auth } = await app.quickbooks.access(companyId, ctx);
    const marks = new CdcMarks(app.pool);
    /** Upserts one page (or one CDC answer) of vendors as commands; counts them. */
    const applyVendors = async (vendors: QbVendor[]) => {
      if (vendors.length === 0) return;
      const known = new Map(
        (
          await app.db
            .selectFrom('vendors')
            .select(['id', 'qb_vendor_id'])
            .where('company_id', '=', companyId)
            .where(
              'qb_vendor_id',
              'in',
              vendors.map((v) => v.Id),
            )
            .execute()
        ).map((r) => [r.qb_vendor_id, r.id]),
      );
      const fresh = vendors.filter((v) => !known.has(v.Id));
      if (fresh.length > 0) {
        const ids = await app.pool.query<{ id: number }>(
          `SELECT nextval('${VENDOR_IDS_SEQUENCE}')::int AS id FROM generate_series(1, $1)`,
          [fresh.length],
        );
        for (const [i, v] of fresh.entries()) known.set(v.Id, ids.rows[i].id);
      }
      const now = new Date().toISOString();
      for (let from = 0; from < vendors.length; from += SYNC_PROGRESS_STEP) {
        const chunk = vendors.slice(from, from + SYNC_PROGRESS_STEP);
        const outcomes = await inParallel(chunk, 8, async (v) => {
          try {
            await app.commands.handle(
              vendorDecider,
              vendorStreamId(companyId, v.Id),
              {
                type: 'SyncVendor',
                vendorId: known.get(v.Id)!,
                companyId,
                qbVendorId: v.Id,
                vendor: {
                  // QuickBooks answers are input: cleaned before they enter the event.
                  name:
                    cleanQbText(v.DisplayName, 255) ?? cleanQbText(v.CompanyName, 255) ?? `Vendor ${v.Id}`,
                  email: cleanQbText(v.PrimaryEmailAddr?.Address, 254),
                  phone: cleanQbText(v.PrimaryPhone?.FreeFormNumber, 40),
                  active: v.Active !== false,
                },
                now,
              },
              { ...ctx, commandId: `${syncId}:${v.Id}` },
            );
            return true;
          } catch (err) {
            app.log.warn(
              { syncId, qbVendorId: v.Id, error: err instanceof Error ? err.message : String(err) },
              'vendor sync: one vendor failed',
            );
            return false;
          }
        });
        for (const ok of outcomes)
          if (ok) synced++;
          else failed++;
        await report();
      }
    };
    // Incremental: a whole-company sync after a successful one asks QuickBooks'
    // Change Data Capture for the vendors changed since that one started, and lists nothing.
    const mark =
      sync.offset === 0 && !run.resume ? await marks.since(companyId, realmId, 'Vendor', Date.now()) : null;
    const answer = mark
      ? await client.cdc(isSandbox, realmId, auth, ['Vendor'], mark).catch((err) => {
          // Throttled, no answer or another fault: as for a page. Refused for its `changedSince`
          // (a mark QuickBooks will not look back to): the whole list is read instead.
          if (!(err instanceof QbApiError) || err.status !== 400 || !/changedSince/i.test(err.message))
            throw err;
          app.log.warn({ syncId, error: String(err) }, 'vendor sync: CDC refused, reading everything');
          return null;
        })
      : null;
    if (answer) {
      const changed = cdcRows<QbVendor & { status?: string }>(answer, 'Vendor');
      if (changed.length < CDC_MAX_OBJECTS) {
        const startedAt = qbTime(answer.time);
        total = changed.length;
        await announce(app, { syncId, companyId, processed: 0, synced, failed, total, done: false });
        // Intuit makes a deleted vendor inactive; a `Deleted` row (Id only) is marked inactive here too.
        const gone = changed.filter((v) => v.status === 'Deleted' && cleanQbId(v.Id) !== null);
        const goneRows = gone.length
          ? await app.db
              .selectFrom('vendors')
              .select(['qb_vendor_id', 'name', 'email', 'phone'])
              .where('company_id', '=', companyId)
              .where(
                'qb_vendor_id',
                'in',
                gone.map((v) => v.Id),
              )
              .execute()
          : [];
        await applyVendors([
          ...changed.filter((v) => v.status !== 'Deleted' && cleanQbId(v.Id) !== null),
          ...goneRows.map((r) => ({
            Id: r.qb_vendor_id,
            DisplayName: r.name,
            PrimaryEmailAddr: r.email ? { Address: r.email } : undefined,
            PrimaryPhone: r.phone ? { FreeFormNumber: r.phone } : undefined,
            Active: false,
          })),
        ]);
        if (startedAt !== null && failed === 0)
          await marks.set(companyId, realmId, 'Vendor', new Date(startedAt));
        return await completeSync();
      }
      // More than CDC answers at once: the whole list is read again below.
    }
    // The bar's denominator; the sync goes on without it if the count fails. Its answer's `time` is
    // QuickBooks' own clock at the start of the read: the next sync asks CDC from there.
    let startedAt: number | null = run.resume?.since ?? null;
    const counted = await client
      .query<{ totalCount?: number }>(isSandbox, realmId, auth, `select count(*) from Vendor ${EVERY_VENDOR}`)
      .then((r) => {
        startedAt ??= qbTime((r as { time?: unknown }).time);
        return r.QueryResponse.totalCount ?? null;
      })
      .catch(() => null);
    total = counted == null ? null : Math.max(0, counted - sync.offset);
    await report();
    // QuickBooks' STARTPOSITION is 1-based; a resumed job goes on from the page it stopped at.
    let start = run.resume?.start ?? sync.offset + 1;
    for (;;) {
      saved = { start, synced, failed, since: startedAt };
      const page = await client.query<{ Vendor?: QbVendor[] }>(
        isSandbox,
        realmId,
        auth,
        `select * from Vendor ${EVERY_VENDOR} STARTPOSITION ${start} MAXRESULTS ${limit}`,
      );
      const rows = page.QueryResponse.Vendor ?? [];
      if (rows.length === 0) break;
      // A row without a QuickBooks id is nothing Billflow can key a vendor on: left out.
      await applyVendors(rows.filter((v) => cleanQbId(v.Id) !== null));
      if (rows.length < limit) break;
      start += rows.length;
    }
    // A whole read from the start (resumed or not; it keeps its start): CDC next time.
    if (sync.offset === 0 && failed === 0 && startedAt !== null)
      await marks.set(companyId, realmId, 'Vendor', new Date(startedAt));
  } catch (err) {
    // Throttled, or QuickBooks did not answer: the job stops here and goes on later from `saved`
    // (delayed past the throttle window, or retried with backoff), unless it has no tries left.
    const later =
      err instanceof QbApiError && err.transient && run.pause ? await run.pause(saved, err) : null;
    if (later) {
      await announce(app, {
        syncId,
        companyId,
        processed: saved.synced + saved.failed,
        synced: saved.synced,
        failed: saved.failed,
        total,
        done: false,
        waiting: true,
        resumesAt: later.toISOString(),
      });
      throw err;
    }
    error = err instanceof Error ? err.message : String(err);
  }
  return await completeSync();

  async function completeSync() {
    await app.commands.handle(
      vendorSyncDecider,
      vendorSyncDecider.streamId(companyId),
      { type: 'CompleteVendorSync', syncId, companyId, synced, failed, error, now: new Date().toISOString() },
      { ...ctx, commandId: `${syncId}:complete` },
    );
    await announce(app, { syncId, companyId, processed: synced + failed, synced, failed, total, done: true });
    return { synced, failed, error };
  }
}
