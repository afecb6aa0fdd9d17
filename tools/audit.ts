// `npm run audit -- <command>`: the auditor's tool, against DATABASE_URL or the local database that
// `npm start` runs (no configuration needed there). Exit status 0 when what was checked is whole.
//   verify                     every stream's chain, every anchor (Merkle roots), the published file
//   replay <approvalId>        each event of the approval and its state after it
//   rebuild-check              every projection rebuilt into a scratch schema, compared with the live rows
//   export <approvalId> [--out file]   a bundle tools/audit-verifier.mjs checks on its own
import { writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../projections/database.js';
import { type ApprovalEvent, approvalEvents } from '../schema/approvals/events.js';
import { evolve, initialState } from '../services/approvals/approval-decider.js';
import { exportApproval } from '../services/approvals/audit-bundle.js';
import { anchorFile } from '../services/eventstore/anchor-publish.js';
import { TailWitness, witnessKey } from '../services/eventstore/tail-witness.js';
import { verifyLog } from '../services/eventstore/verify.js';
import { projections } from '../services/modules/index.js';
import type { PersonalDataStore } from '../services/privacy/personal-data.js';
import { openEventStore } from '../services/privacy/store.js';
import { createPool } from '../services/shared/db.js';
import { eventDecoder } from '../services/shared/decider.js';
import { rebuildCheck } from './audit-rebuild-check.js';
import { localSecret } from './local-secrets.js';

type Out = (line: string) => void;

export async function auditVerify(
  pool: pg.Pool,
  out: Out,
  opts: { published?: string | null; witness?: Pick<TailWitness, 'read'> | null; threads?: number } = {},
) {
  const r = await verifyLog(pool, opts);
  out(
    `checked ${r.events} events in ${r.streams} streams and ${r.anchors} anchors` +
      (r.published === null ? '' : ` (${r.published} published)`) +
      `; ${r.unanchored} event(s) after the last anchor`,
  );
  out(
    r.witnessed === null
      ? 'tail witness: not read (no Redis): events after the last anchor checked against the read models only'
      : `tail witness: ${r.witnessed} stream(s) written since the last anchor, compared with the log`,
  );
  for (const f of r.findings) out(`${f.kind.toUpperCase()}  ${f.where}: ${f.detail}`);
  out(r.findings.length === 0 ? 'The log is intact.' : `${r.findings.length} finding(s).`);
  return r.findings.length === 0 ? 0 : 1;
}

const decode = eventDecoder(approvalEvents);
/** The decider's state, without the bills and the personal fields (recipients, contacts). */
const summary = (s: ReturnType<typeof initialState>) => {
  const { bills, vendorContacts, recipients, payment, ...rest } = s;
  const pay = Object.fromEntries(
    Object.entries(payment).filter(
      ([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v),
    ),
  );
  return { ...rest, bills: bills.length, recipients: recipients.length, payment: pay };
};

export async function auditReplay(store: PersonalDataStore, approvalId: string, out: Out) {
  const { events } = await store.readStream(`approval-${approvalId}`);
  if (events.length === 0) {
    out(`No approval ${approvalId}`);
    return 1;
  }
  let state = initialState();
  for (const e of events) {
    const actor =
      (e.metadata.userId ?? (e.data as { byUserId?: number | null }).byUserId ?? null) === null
        ? 'system'
        : `user ${e.metadata.userId ?? (e.data as { byUserId?: number }).byUserId}`;
    out(`#${e.streamVersion}  ${e.position}  ${e.createdAt.toISOString()}  ${e.type}  by ${actor}`);
    // An event the decider does not fold (an export's record) leaves the state as it was.
    if (Object.hasOwn(approvalEvents, e.type) && e.type !== 'ApprovalAuditExported')
      state = evolve(state, decode(e, { sealed: 'absent' }) as ApprovalEvent);
    out(`    state: ${JSON.stringify(summary(state))}`);
  }
  return 0;
}

export async function auditRebuildCheck(pool: pg.Pool, store: PersonalDataStore, out: Out) {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const { checked, differences } = await rebuildCheck(db, store, projections);
  // Per table: a projection's tables hold different things (the approvals' rows, their counters).
  for (const c of checked)
    out(`rebuilt ${c.name}: ${c.tables.map((t) => `${t.table} ${t.rows} row(s)`).join(', ')}`);
  for (const d of differences)
    out(
      `DIFFERS  ${d.projection} ${d.table} ${d.key}: ${d.kind}${d.columns.length ? ` (${d.columns.join(', ')})` : ''}`,
    );
  out(
    differences.length === 0 ? 'Every read model matches the log.' : `${differences.length} row(s) differ.`,
  );
  return differences.length === 0 ? 0 : 1;
}

export async function runAudit(argv: string[], out: Out = console.log, env = process.env): Promise<number> {
  const [command, arg] = argv;
  if (!['verify', 'replay', 'rebuild-check', 'export'].includes(command ?? '')) {
    out(
      'usage: npm run audit -- verify | replay <approvalId> | rebuild-check | export <approvalId> [--out file]',
    );
    return 2;
  }
  if ((command === 'replay' || command === 'export') && !arg) {
    out(`usage: npm run audit -- ${command} <approvalId>`);
    return 2;
  }
  let databaseUrl = env.DATABASE_URL;
  let redisUrl = env.REDIS_URL;
  if (!databaseUrl) {
    const { ensureLocalServices, localSocketUrl, withDatabase } = await import('./local-services.js');
    const services = await ensureLocalServices();
    databaseUrl = withDatabase(localSocketUrl(services.databaseUrl) ?? services.databaseUrl, 'billflow');
    redisUrl ??= services.redisUrl;
  }
  const pool = createPool({ connectionString: databaseUrl, max: 4 });
  try {
    if (command === 'verify') {
      // The instance's tail witness, in its Redis under its prefix (services/eventstore/tail-witness.ts).
      const redis = redisUrl
        ? new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000 })
        : null;
      redis?.on('error', () => {});
      try {
        const witness = await redis?.connect().then(
          async () => new TailWitness(redis, await witnessKey(pool, env.REDIS_PREFIX ?? 'bf')),
          () => null,
        );
        return await auditVerify(pool, out, { witness: witness ?? null });
      } finally {
        redis?.disconnect();
      }
    }
    const key = env.ENCRYPTION_KEY ?? localSecret('ENCRYPTION_KEY');
    if (!key) throw new Error('ENCRYPTION_KEY is not set (npm start keeps it in .local/secrets.json)');
    const { store } = await openEventStore({ pool, encryptionKey: key, eventstoreUrl: env.EVENTSTORE_URL });
    try {
      if (command === 'replay') return await auditReplay(store, arg, out);
      if (command === 'rebuild-check') return await auditRebuildCheck(pool, store, out);
      const bundle = await exportApproval(pool, { raw: store.inner, opened: store }, arg);
      const at = argv.indexOf('--out');
      const file = at > 0 ? argv[at + 1] : `audit-${arg}.json`;
      writeFileSync(file, `${JSON.stringify(bundle, null, 2)}\n`);
      out(`wrote ${file}: ${bundle.events.length} events under ${bundle.anchors.length} anchor(s)`);
      out(`check it with: node tools/audit-verifier.mjs ${file} ${await anchorFile(pool)}`);
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    await pool.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  runAudit(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(err.message);
      process.exit(2);
    },
  );
