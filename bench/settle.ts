// Brings a bench database to the state a running product's tables are in between bursts: the bulk
// setup's rows vacuumed and analysed, its dirty pages flushed. Without it the measured runs pay for
// autovacuum and the checkpointer catching up on the setup, which is the bench's doing, not a user's.
import pg from 'pg';

export async function settle(databaseUrl: string, tables: readonly string[]): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    for (const t of tables) await c.query(`VACUUM (ANALYZE) ${pg.escapeIdentifier(t)}`);
    await c.query('CHECKPOINT');
  } finally {
    await c.end();
  }
}
