// Rebuilds read models by hand: `npm run rebuild -- users` (or `all`). Safe while the product runs:
// the new tables are built in a scratch schema and swapped in with their checkpoint; a live runner's
// next batch then fails its checkpoint compare-and-set and carries on from the swapped-in position.
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../projections/database.js';
import { rebuildProjection } from '../projections/rebuild.js';
import { projections } from '../services/modules/index.js';
import { openEventStore } from '../services/privacy/store.js';
import { configSchema } from '../services/shared/config.js';
import { createPool } from '../services/shared/db.js';
import { localSecret } from './local-secrets.js';

export async function rebuildByName(names: string[], env: Record<string, string | undefined> = process.env) {
  // Only what a rebuild needs; the gateway's secrets are not required here.
  const parsed = configSchema
    .pick({ DATABASE_URL: true, EVENTSTORE_URL: true, ENCRYPTION_KEY: true })
    .safeParse({
      DATABASE_URL: env.DATABASE_URL ?? 'postgres://postgres:billflow@127.0.0.1:54329/billflow',
      EVENTSTORE_URL: env.EVENTSTORE_URL || undefined,
      // The key that opens the log's personal fields: npm start keeps it in .local/secrets.json.
      ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? localSecret('ENCRYPTION_KEY'),
    });
  if (!parsed.success) throw new Error(`Invalid configuration: ${parsed.error.message}`);
  const config = parsed.data;
  const chosen = names.includes('all') ? projections : projections.filter((p) => names.includes(p.name));
  const unknown = names.filter((n) => n !== 'all' && !projections.some((p) => p.name === n));
  if (unknown.length > 0 || chosen.length === 0)
    throw new Error(
      `Unknown projection ${unknown.join(', ') || '(none given)'}; choose from: all, ${projections.map((p) => p.name).join(', ')}`,
    );
  const pool = createPool({ connectionString: config.DATABASE_URL, max: 4 });
  const { store } = await openEventStore({
    pool,
    encryptionKey: config.ENCRYPTION_KEY,
    eventstoreUrl: config.EVENTSTORE_URL,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const results: Array<{ name: string; events: number; seconds: number }> = [];
  try {
    for (const p of chosen) {
      const start = performance.now();
      const { events } = await rebuildProjection(db, store, p);
      results.push({ name: p.name, events, seconds: (performance.now() - start) / 1000 });
    }
  } finally {
    await store.close();
    await db.destroy();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  rebuildByName(names.length ? names : ['all']).then(
    (results) => {
      for (const r of results)
        console.log(`rebuilt ${r.name}: ${r.events} events in ${r.seconds.toFixed(1)} s, swapped in`);
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
