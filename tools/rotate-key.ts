// `npm run rotate-key`: moves the database to a new ENCRYPTION_KEY (services/privacy/key-rotation.ts;
// docs/OPERATIONS.md, "Changing ENCRYPTION_KEY"). Stop Billflow first.
//
// - Deployed (DATABASE_URL set): ENCRYPTION_KEY is the key the database has now, NEW_ENCRYPTION_KEY
//   the one to move to. Then start Billflow with ENCRYPTION_KEY set to the new key.
// - This checkout (no DATABASE_URL): the key in .local/secrets.json is replaced by a new random one.
//   The new key is saved (as ENCRYPTION_KEY_NEXT) before the database moves to it, and made the
//   key only after, so no crash can lose the key the database is under; running again finishes.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  RotationRefused,
  type RotationResult,
  rotateEncryptionKey,
} from '../services/privacy/key-rotation.js';
import { createPool } from '../services/shared/db.js';
import { runCli } from './cli.js';
import { readSecrets, SECRETS_FILE, saveSecrets } from './local-secrets.js';

/** This checkout's flow, on its secrets file; returns what the rotation did. */
export async function rotateLocalKey(opts: {
  pool: pg.Pool;
  secretsFile?: string;
  log?: (line: string) => void;
}): Promise<RotationResult> {
  const file = opts.secretsFile ?? SECRETS_FILE;
  const secrets = readSecrets(file);
  if (!secrets.ENCRYPTION_KEY)
    throw new RotationRefused(`${file} holds no ENCRYPTION_KEY: nothing to change.`);
  // An interrupted run left its next key: finish moving to that one, never to another.
  const next = secrets.ENCRYPTION_KEY_NEXT ?? randomBytes(32).toString('base64');
  if (!secrets.ENCRYPTION_KEY_NEXT) saveSecrets({ ...secrets, ENCRYPTION_KEY_NEXT: next }, file);
  let result: RotationResult;
  try {
    result = await rotateEncryptionKey({
      pool: opts.pool,
      from: secrets.ENCRYPTION_KEY,
      to: next,
      log: opts.log,
    });
  } catch (err) {
    // A refusal changed nothing: a key made by this run is not kept (npm start would take it for an
    // interrupted change). Any other failure may have come after the commit: the key stays.
    if (err instanceof RotationRefused && !secrets.ENCRYPTION_KEY_NEXT) saveSecrets(secrets, file);
    throw err;
  }
  const { ENCRYPTION_KEY_NEXT: _, ...rest } = secrets;
  saveSecrets({ ...rest, ENCRYPTION_KEY: next }, file);
  return result;
}

function report(r: RotationResult) {
  if (r.alreadyDone) return 'The database was already under the new key: nothing changed.';
  return [
    `Re-wrapped ${r.subjectKeys} subject key(s) and ${r.material} key(s) of Billflow's own; ${r.forgotten} forgotten subject(s) have none.`,
    r.idempotencyAnswers > 0
      ? `Dropped ${r.idempotencyAnswers} remembered Idempotency-Key answer(s) sealed under the old key.`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    const from = process.env.ENCRYPTION_KEY;
    const to = process.env.NEW_ENCRYPTION_KEY;
    if (!from || !to)
      throw new RotationRefused(
        'Set ENCRYPTION_KEY to the key the database has now and NEW_ENCRYPTION_KEY to the new one (32 bytes, base64: `openssl rand -base64 32`).',
      );
    // One connection: the rotation refuses while any other is open (see key-rotation.ts).
    const pool = createPool({ connectionString: databaseUrl, max: 1 });
    try {
      console.log(report(await rotateEncryptionKey({ pool, from, to })));
      console.log(
        'Start Billflow with ENCRYPTION_KEY set to the new key. Keep the old one until backups made with it are gone.',
      );
    } finally {
      await pool.end();
    }
    return;
  }
  const { ensureDatabase, ensureLocalServices, localSocketUrl, withDatabase } = await import(
    './local-services.js'
  );
  const services = await ensureLocalServices();
  const url = await ensureDatabase(
    withDatabase(localSocketUrl(services.databaseUrl) ?? services.databaseUrl, 'billflow'),
  );
  const pool = createPool({ connectionString: url, max: 1 });
  try {
    console.log(report(await rotateLocalKey({ pool })));
    console.log(`The new key is in ${SECRETS_FILE}; \`npm start\` uses it.`);
  } finally {
    await pool.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runCli(main, (err) => err instanceof RotationRefused);
