// Runs the bank sandbox alone: `npx tsx tools/bank-sandbox/main.ts` (BILLFLOW_BANK_SFTP_PORT, default
// 4022; BILLFLOW_BANK_HOOKS_PORT, default 4023; BILLFLOW_BANK_STATE, default .local/bank-sandbox),
// with the demo's user and answer rules when its state has none yet.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_ODFI_ROUTING, demoBankRules, demoBankUsers } from './demo.js';
import { startBankSandbox } from './server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bank = await startBankSandbox({
  stateDir: process.env.BILLFLOW_BANK_STATE || path.join(root, '.local', 'bank-sandbox'),
  sftpPort: Number(process.env.BILLFLOW_BANK_SFTP_PORT ?? 4022),
  hooksPort: Number(process.env.BILLFLOW_BANK_HOOKS_PORT ?? 4023),
  users: demoBankUsers,
  rules: demoBankRules,
});
const user = demoBankUsers[0];
process.stdout.write(
  `Bank sandbox (SFTP): sftp://127.0.0.1:${bank.sftpPort}  (ODFI ${DEMO_ODFI_ROUTING}, user ${user.username} / ${user.password})\n` +
    `  host key ${bank.hostKeyFingerprint()}; test hooks at ${bank.hooksUrl}/__bank\n`,
);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void bank.close().then(() => process.exit(0)));
