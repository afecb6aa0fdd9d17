// Runs the QuickBooks simulator alone: `npx tsx tools/qbo-sandbox/main.ts` (QBO_SANDBOX_PORT,
// default 4010; QBO_SANDBOX_CLIENT_ID / _SECRET for the one registered app; QBO_SANDBOX_STATE for a
// state file kept across restarts).
import { startQboSandbox } from './server.js';

const clientId = process.env.QBO_SANDBOX_CLIENT_ID ?? 'billflow-demo';
const clientSecret = process.env.QBO_SANDBOX_CLIENT_SECRET ?? 'billflow-demo-secret';
const sandbox = await startQboSandbox({
  port: Number(process.env.QBO_SANDBOX_PORT ?? 4010),
  clients: [{ clientId, clientSecret }],
  accessTtlSeconds: process.env.QBO_SANDBOX_ACCESS_TTL
    ? Number(process.env.QBO_SANDBOX_ACCESS_TTL)
    : undefined,
  // QBO_SANDBOX_STATE: a JSON file that keeps the simulator's state across restarts.
  stateFile: process.env.QBO_SANDBOX_STATE || undefined,
});
process.stdout.write(`QuickBooks simulator at ${sandbox.url} (client ${clientId} / ${clientSecret})\n`);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void sandbox.close().then(() => process.exit(0)));
