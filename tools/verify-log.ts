// `npm run verify-log`: checks the Postgres log's hash chains and anchors (services/eventstore/verify.ts)
// and prints each finding. Exit status 0 when the log is intact, 1 when something was found.

import { verifyLog } from '../services/eventstore/verify.js';
import { createPool } from '../services/shared/db.js';

async function main() {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const { ensureLocalServices, localSocketUrl, withDatabase } = await import('./local-services.js');
    const services = await ensureLocalServices();
    databaseUrl = withDatabase(localSocketUrl(services.databaseUrl) ?? services.databaseUrl, 'billflow');
  }
  const pool = createPool({ connectionString: databaseUrl, max: 2 });
  try {
    const r = await verifyLog(pool);
    console.log(`checked ${r.events} events in ${r.streams} streams and ${r.anchors} anchors`);
    for (const f of r.findings) console.log(`${f.kind.toUpperCase()}  ${f.where}: ${f.detail}`);
    console.log(r.findings.length === 0 ? 'The log is intact.' : `${r.findings.length} finding(s).`);
    return r.findings.length === 0 ? 0 : 1;
  } finally {
    await pool.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err.message);
    process.exit(2);
  },
);
