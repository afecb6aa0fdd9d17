// `npm test`'s step "audit (demo data)", also run alone: `npx tsx tools/audit-ci.ts`.
// The audit is done when the CI log itself shows the auditor's real commands at work on the demo
// data, not only vitest saying so: this runs `npm run audit` as a child process, as an auditor would,
//   1. on a scratch database holding the demo data (seeded as `npm start` seeds it, by seedDemoData,
//      payments included) and the anchors the product's own anchor job wrote: verify, rebuild-check,
//      export of an approval and the standalone verifier on its bundle, each expected to pass, and
//      the verifier again on the bundle cut short and on it with a recipient changed in its view,
//      each expected to fail and to name what was done;
//   2. on one copy of that database per kind of tampering (altered, inserted, deleted, tail
//      removed, anchor rewritten: tools/audit-tamper.ts), each with its own copy of the published
//      anchor file: verify, expected to fail and to name what was done.
// Every database and Redis key it makes is removed afterwards, whether it passed or not.
// Exit status 0 when every expectation held; a failure prints the command's whole output.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { anchorFile } from '../services/eventstore/anchor-publish.js';
import { POSITION_SQL } from '../services/eventstore/postgres.js';
import { witnessKey } from '../services/eventstore/tail-witness.js';
import { type StartedApp, startApp } from '../services/main.js';
import { createManager } from '../services/managers/managers.js';
import { loadConfig } from '../services/shared/config.js';
import type { Logger } from '../services/shared/log.js';
import { QUEUES, queuePrefix } from '../services/shared/queues.js';
import { redisOptions } from '../services/shared/redis.js';
import { Expectation, one, TAMPERINGS, type Tampering } from './audit-tamper.js';
import { ensureLocalServices, ROOT, withDatabase } from './local-services.js';
import { startQboSandbox } from './qbo-sandbox/server.js';
import { seedDemoData } from './seed.js';

const print = (line = '') => process.stdout.write(`${line}\n`);

/** Everything made here, so that it can all go again (also on SIGINT/SIGTERM). */
const made = {
  databases: [] as string[],
  files: [] as string[],
  redisPrefix: '',
  adminUrl: '',
  redisUrl: '',
};

/** The product's last log lines (it logs nowhere else here): printed when seeding fails. */
const recent: string[] = [];
const log: Logger = Object.fromEntries(
  (['info', 'warn', 'error'] as const).map((level) => [
    level,
    (obj: unknown, msg?: string) => {
      recent.push(`${level} ${msg ?? ''} ${safeJson(obj)}`);
      if (recent.length > 40) recent.shift();
    },
  ]),
) as unknown as Logger;

function safeJson(v: unknown) {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: made.adminUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

async function createDatabase(name: string, template?: string) {
  made.databases.push(name);
  // FILE_COPY: a copy of the seeded database is a file copy, not a replay of every page through the WAL.
  await admin((c) =>
    c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template} STRATEGY FILE_COPY` : ''}`),
  );
  return withDatabase(made.adminUrl, name);
}

async function dropDatabase(name: string) {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  made.databases = made.databases.filter((d) => d !== name);
}

let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const name of [...made.databases])
    await dropDatabase(name).catch((err) => print(`could not drop database ${name}: ${String(err)}`));
  for (const f of made.files) rmSync(f, { recursive: true, force: true });
  if (made.redisPrefix) {
    const r = new Redis(made.redisUrl, { maxRetriesPerRequest: null });
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${made.redisPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
    r.disconnect();
  }
}

/** This run's product secrets; the CLI is given the same ENCRYPTION_KEY. */
const secrets = {
  JWT_SECRET: randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

/** The product as `npm start` runs it (or one role of it), on the scratch database, quietly. */
function startProduct(databaseUrl: string, extra: Record<string, string>): Promise<StartedApp> {
  return startApp(
    loadConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      REDIS_URL: made.redisUrl,
      REDIS_PREFIX: made.redisPrefix,
      LOG_LEVEL: 'silent',
      ADMIN_EMAIL: 'admin@billflow.local',
      ADMIN_PASSWORD: 'Audit-CI-Passw0rd!',
      JWT_SECRET: secrets.JWT_SECRET,
      ENCRYPTION_KEY: secrets.ENCRYPTION_KEY,
      ...extra,
    }),
    { log },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Until every read model's checkpoint has reached the log's last event: what the projections read
 * is the evidence of the log's tail (verify.ts), and rebuild-check compares up to it.
 */
async function projectionsCaughtUp(pool: pg.Pool, boundMs = 30_000) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const r = await pool.query<{ name: string; position: string; head: string }>(
      `SELECT c.name, c.position,
              (SELECT ${POSITION_SQL} FROM es_events
                ORDER BY es_events.epoch DESC, es_events.transaction_id DESC, es_events.global_position DESC
                LIMIT 1) AS head
         FROM projection_checkpoints c`,
    );
    const behind = r.rows.filter((c) => c.position < c.head);
    if (r.rows.length > 0 && behind.length === 0) return r.rows[0].head;
    if (Date.now() > deadline)
      throw new Expectation(
        `read models not caught up within ${boundMs} ms: ${behind.map((c) => `${c.name} at ${c.position}`).join(', ')} (log at ${r.rows[0]?.head})`,
      );
    await sleep(100);
  }
}

/**
 * The demo data of README's first command on the scratch database: the product (all roles), the
 * QuickBooks simulator, seedDemoData as tools/start.ts calls it (users, managers, four companies,
 * vendors, twelve approvals carried through the payment path by the workers). Not the SMTP catcher:
 * mail then waits unsent, and no mail is an event. Then the product's anchor job, asked to run now
 * rather than at its next minute, anchors the log.
 */
async function seedScratch(databaseUrl: string) {
  const demoApp = { clientId: 'billflow-demo', clientSecret: 'billflow-demo-secret' };
  const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'billflow-demo-2min-secret' };
  const sim = await startQboSandbox({ clients: [demoApp, { ...shortLivedApp, accessTtlSeconds: 120 }] });
  let started: StartedApp | null = null;
  try {
    started = await startProduct(databaseUrl, { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url });
    if (!started.url) throw new Error('the product started without its gateway');
    await seedDemoData(started.app, { url: sim.url, gatewayUrl: started.url, app: demoApp, shortLivedApp });
    await projectionsCaughtUp(started.app.pool);
    const connection = redisOptions(made.redisUrl);
    const prefix = queuePrefix(made.redisPrefix);
    const queue = new Queue(QUEUES.maintenance, { connection, prefix });
    const events = new QueueEvents(QUEUES.maintenance, { connection, prefix });
    try {
      await events.waitUntilReady();
      const job = await queue.add('anchor-log', {});
      await job.waitUntilFinished(events, 30_000);
    } finally {
      await events.close();
      await queue.close();
    }
    const counts = await started.app.pool.query<{ events: string; anchors: string; approvals: string }>(
      `SELECT (SELECT count(*) FROM es_events)::text AS events, (SELECT count(*) FROM es_anchors)::text AS anchors,
              (SELECT string_agg(status || ' ' || n, ', ' ORDER BY status) FROM
                 (SELECT status, count(*) AS n FROM approvals GROUP BY status) s) AS approvals`,
    );
    const c = counts.rows[0];
    print(`seeded: ${c.events} events, ${c.anchors} anchor(s) by the anchor job; approvals: ${c.approvals}`);
  } catch (err) {
    if (recent.length) print(`the product's last log lines:\n${recent.join('\n')}`);
    throw err;
  } finally {
    await started?.close();
    await sim.close();
  }
}

/**
 * Events after the last anchor that the read models have read: the log's tail as the anchors do not
 * cover it yet (they are written each minute), which only the projections' checkpoints record. A
 * projector alone (no worker, so no anchor job) and one command: a manager created by the admin.
 */
async function addUnanchoredTail(databaseUrl: string) {
  const started = await startProduct(databaseUrl, { ROLE: 'projector' });
  try {
    const { rows } = await started.app.pool.query<{ id: number; email: string }>(
      `SELECT id, email FROM users WHERE role = 'ADMIN' ORDER BY id LIMIT 1`,
    );
    await createManager(
      started.app,
      { id: rows[0].id, role: 'ADMIN', email: rows[0].email },
      {
        firstName: 'Tess',
        lastName: 'Tail',
        email: 'tess.tail@billflow.local',
        title: 'After the last anchor',
        phone: null,
        userId: null,
      },
    );
    await projectionsCaughtUp(started.app.pool);
  } finally {
    await started.close();
  }
}

interface CliResult {
  code: number | null;
  out: string;
}

/** The commands running (the tamper checks run side by side): a signal is passed on to each. */
const running = new Set<ChildProcess>();

function runCli(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', (err) =>
      resolve({ code: null, out: `${out}could not run ${cmd}: ${err.message}\n` }),
    );
    child.once('close', (code) => {
      running.delete(child);
      resolve({ code, out });
    });
  });
}

const indent = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => `    ${l}`)
    .join('\n');

/** Runs a command that must pass: its output shown, its exit 0 and `expected` in it, or it fails. */
async function mustPass(cmd: string, args: string[], env: NodeJS.ProcessEnv, expected: RegExp) {
  print(`$ ${[cmd, ...args].map((a) => a.replace(`${ROOT}/`, '')).join(' ')}`);
  const began = Date.now();
  const r = await runCli(cmd, args, env);
  print(indent(r.out));
  print(`    (exit ${r.code}, ${((Date.now() - began) / 1000).toFixed(1)} s)`);
  if (r.code !== 0 || !expected.test(r.out))
    throw new Expectation(`expected exit 0 and ${expected} (got exit ${r.code})`);
  return r.out;
}

/** Runs a command that must fail: its output shown, its exit 1 and `expected` in it, or it fails. */
async function mustFail(cmd: string, args: string[], env: NodeJS.ProcessEnv, expected: RegExp) {
  print(`$ ${[cmd, ...args].map((a) => a.replace(`${ROOT}/`, '')).join(' ')}`);
  const r = await runCli(cmd, args, env);
  print(indent(r.out));
  print(`    (exit ${r.code})`);
  if (r.code !== 1 || !expected.test(r.out))
    throw new Expectation(`expected exit 1 and ${expected} (got exit ${r.code})`);
}

/**
 * The bundle as someone who wanted to hide the approval's end, or who it was paid to, could hand it
 * over: cut to its first third of events (the view with them), or a sealed recipient changed in the
 * view. Each file beside the bundle; the verifier must refuse both.
 */
async function tamperedBundles(bundle: string, env: NodeJS.ProcessEnv, anchors: string) {
  const b = JSON.parse(readFileSync(bundle, 'utf8')) as {
    events: unknown[];
    view: Array<{ version: number; type: string; data: Record<string, unknown> }>;
  };
  const n = Math.max(1, Math.floor(b.events.length / 3));
  const cut = bundle.replace(/\.json$/, '.cut.json');
  writeFileSync(cut, JSON.stringify({ ...b, events: b.events.slice(0, n), view: b.view.slice(0, n) }));
  await mustFail(
    'node',
    ['tools/audit-verifier.mjs', cut, anchors],
    env,
    new RegExp(
      `^FAILED  stream \\S+: the bundle ends with version ${n}, \\w+, not with an export of this approval`,
      'm',
    ),
  );
  const entry = b.view.find((v) => Array.isArray(v.data.recipients) && v.data.recipients.length > 0);
  if (!entry) throw new Expectation('the exported approval has no recipient in its view');
  (entry.data.recipients as string[])[0] = 'someone.else@example.test';
  const relabelled = bundle.replace(/\.json$/, '.view.json');
  writeFileSync(relabelled, JSON.stringify(b));
  await mustFail(
    'node',
    ['tools/audit-verifier.mjs', relabelled, anchors],
    env,
    new RegExp(
      `^FAILED  view version ${entry.version} ${entry.type}\\.recipients: does not match the commitment sealed in the event$`,
      'm',
    ),
  );
}

/**
 * Each kind on its own copy of the scratch database, with its own copy of the published anchors;
 * the copies made and tampered with one after the other, then verified side by side (each verify
 * is a process of its own), and their lines printed in order.
 */
async function tamperAll(
  scratch: string,
  scratchUrl: string,
  anchors: string,
  cliEnv: (url: string) => NodeJS.ProcessEnv,
) {
  const copies: Array<{ t: Tampering; name: string; url: string; finding: RegExp }> = [];
  const redis = new Redis(made.redisUrl, { maxRetriesPerRequest: 1 });
  // What the instance's tail witness holds (tail-witness.ts: keyed by the database's name and oid),
  // read before the copies are made: a template must have no other connection.
  const original = new pg.Pool({ connectionString: scratchUrl, max: 1 });
  const witnessed = await redis.hgetall(await witnessKey(original, made.redisPrefix));
  await original.end();
  try {
    for (const t of TAMPERINGS) {
      const name = `${scratch}_${t.kind.replace(/\W/g, '').slice(0, 8)}`;
      const url = await createDatabase(name, scratch);
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        // The file is named after the database (anchor-publish.ts): the copy's holds what was published.
        copyFileSync(anchors, await anchorFile(pool));
        // So is the witness's: the copy's holds what the instance witnessed.
        if (Object.keys(witnessed).length > 0)
          await redis.hset(await witnessKey(pool, made.redisPrefix), witnessed);
        copies.push({ t, name, url, finding: await t.apply(pool) });
      } finally {
        await pool.end();
      }
    }
    const began = Date.now();
    const results = await Promise.all(
      copies.map((c) => runCli('npm', ['run', 'audit', '--', 'verify'], cliEnv(c.url))),
    );
    print(
      `    (${copies.length} copies verified side by side in ${((Date.now() - began) / 1000).toFixed(1)} s)`,
    );
    let ok = true;
    for (const [i, { t, finding }] of copies.entries()) {
      const r = results[i];
      const line = r.out.split('\n').find((l) => finding.test(l));
      if (r.code === 0 || r.code === null || !line) {
        print(`tamper ${t.kind}: NOT caught (exit ${r.code}; expected a line ${finding})`);
        print(indent(r.out));
        ok = false;
      } else print(`tamper ${t.kind}: caught (exit ${r.code}) — ${line}`);
    }
    return ok;
  } finally {
    redis.disconnect();
    for (const c of copies) await dropDatabase(c.name);
  }
}

export async function auditCi(): Promise<boolean> {
  const services = await ensureLocalServices();
  made.adminUrl = withDatabase(services.databaseUrl, 'postgres');
  made.redisUrl = services.redisUrl;
  made.redisPrefix = `auditci_${randomBytes(4).toString('hex')}`;
  const scratch = `bf_auditci_${randomBytes(5).toString('hex')}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'billflow-audit-ci-'));
  made.files.push(dir);
  // Published anchors go to a directory of this run's own (the product reads AUDIT_ANCHOR_DIR, as the CLI does).
  process.env.AUDIT_ANCHOR_DIR = dir;
  const cliEnv = (url: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: url,
      // The instance's Redis and prefix: verify reads the log's tail witness there.
      REDIS_URL: made.redisUrl,
      REDIS_PREFIX: made.redisPrefix,
      AUDIT_ANCHOR_DIR: dir,
      ENCRYPTION_KEY: secrets.ENCRYPTION_KEY,
    };
    delete env.EVENTSTORE_URL;
    return env;
  };
  try {
    const url = await createDatabase(scratch);
    print(`scratch database ${scratch}, published anchors in ${dir}`);
    const seeding = Date.now();
    await seedScratch(url);
    print(`(seeded in ${((Date.now() - seeding) / 1000).toFixed(1)} s)`);
    const env = cliEnv(url);

    await mustPass('npm', ['run', 'audit', '--', 'verify'], env, /^The log is intact\.$/m);
    await mustPass(
      'npm',
      ['run', 'audit', '--', 'rebuild-check'],
      env,
      /^Every read model matches the log\.$/m,
    );
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    let approvalId: string;
    let anchors: string;
    try {
      approvalId = (
        await one<{ id: string }>(
          pool,
          `SELECT id FROM approvals WHERE status = 'PAYMENT_COMPLETED' ORDER BY id LIMIT 1`,
        )
      ).id;
      anchors = await anchorFile(pool);
    } finally {
      await pool.end();
    }
    const bundle = path.join(dir, `audit-${approvalId}.json`);
    await mustPass('npm', ['run', 'audit', '--', 'export', approvalId, '--out', bundle], env, /^wrote /m);
    await mustPass(
      'node',
      ['tools/audit-verifier.mjs', bundle, anchors],
      env,
      /^OK: .*view: [1-9]\d* field\(s\) proven against the events, 0 unverified$/m,
    );
    await tamperedBundles(bundle, env, anchors);

    // The copies start from a log whose end the anchors do not cover yet, read by the read models.
    const tail = Date.now();
    await addUnanchoredTail(url);
    print(
      `(a manager created after the last anchor, read by the read models, in ${((Date.now() - tail) / 1000).toFixed(1)} s)`,
    );
    await mustPass(
      'npm',
      ['run', 'audit', '--', 'verify'],
      env,
      /[1-9]\d* event\(s\) after the last anchor[\s\S]*^The log is intact\.$/m,
    );
    print('$ npm run audit -- verify   (on a copy per kind of tampering)');
    return await tamperAll(scratch, url, anchors, cliEnv);
  } catch (err) {
    print(
      err instanceof Expectation ? `FAILED: ${err.message}` : String(err instanceof Error ? err.stack : err),
    );
    return false;
  } finally {
    await cleanup();
    await services.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const stop = (signal: NodeJS.Signals) => {
    for (const child of running) child.kill(signal);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const started = Date.now();
  auditCi().then(
    (ok) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      print(ok ? `every expectation held (${seconds} s)` : `FAILED (${seconds} s): see above`);
      process.exit(ok ? 0 : 1);
    },
    (err) => {
      print(String(err instanceof Error ? err.stack : err));
      process.exit(1);
    },
  );
}
