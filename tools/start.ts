// `npm start`: the whole product on embedded defaults. Local Postgres and Redis on loopback
// (installed from Debian's packages when missing), an SMTP catcher with a web inbox, the web app
// built when needed, the QuickBooks simulator, the bank's SFTP sandbox, all roles in one process,
// the first admin and demo data (users, managers, companies connected to the simulator). Prints
// where to go.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { startApp } from '../services/main.js';
import { ConfigError, loadConfig } from '../services/shared/config.js';
import { DEMO_ODFI_ROUTING, demoBankRules, demoBankUsers } from './bank-sandbox/demo.js';
import { startBankSandbox } from './bank-sandbox/server.js';
import { localSecrets } from './local-secrets.js';
import { ensureDatabase, ensureLocalServices, localSocketUrl, ROOT, withDatabase } from './local-services.js';
import { startQboSandbox } from './qbo-sandbox/server.js';
import { seedDemoData } from './seed.js';
import { startSmtpCatcher } from './smtp-catcher.js';

/** Builds web/dist when it is missing or older than any web source file. */
function ensureWebBuild() {
  const dist = path.join(ROOT, 'web', 'dist', 'index.html');
  const config = path.join(ROOT, 'web', 'vite.config.ts');
  if (!existsSync(config)) return;
  const newestSource = (dir: string): number => {
    let newest = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
    }
    return newest;
  };
  if (existsSync(dist) && statSync(dist).mtimeMs >= newestSource(path.join(ROOT, 'web', 'src'))) return;
  process.stdout.write('Building the web app…\n');
  const r = spawnSync('npx', ['vite', 'build', '--config', config, '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('web build failed');
}

async function main() {
  const services = await ensureLocalServices();
  const databaseUrl = await ensureDatabase(
    process.env.DATABASE_URL ??
      withDatabase(localSocketUrl(services.databaseUrl) ?? services.databaseUrl, 'billflow'),
  );
  const secrets = localSecrets();
  if (secrets.ENCRYPTION_KEY_NEXT && !process.env.ENCRYPTION_KEY) {
    process.stderr.write(
      'A change of ENCRYPTION_KEY was interrupted (.local/secrets.json holds the next key): run `npm run rotate-key` to finish it, then start again.\n',
    );
    process.exit(1);
  }
  const smtpPort = Number(process.env.SMTP_CATCHER_PORT ?? 1025);
  const inboxPort = Number(process.env.SMTP_INBOX_PORT ?? 8025);
  // The inbox outlives a restart: its messages are kept in .local/, as the simulator keeps its state.
  const catcher = process.env.SMTP_URL
    ? null
    : await startSmtpCatcher({
        smtpPort,
        httpPort: inboxPort,
        file: path.join(ROOT, '.local', 'smtp-catcher.jsonl'),
      });
  // The QuickBooks simulator stands in for Intuit unless QBO_OAUTH_BASE points elsewhere.
  const demoApp = { clientId: 'billflow-demo', clientSecret: 'billflow-demo-secret' };
  const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'billflow-demo-2min-secret' };
  const sandbox = process.env.QBO_OAUTH_BASE
    ? null
    : await startQboSandbox({
        port: Number(process.env.QBO_SANDBOX_PORT ?? 4010),
        clients: [demoApp, { ...shortLivedApp, accessTtlSeconds: 120 }],
        // Grants, tokens, bills and payments outlive a restart, as at Intuit.
        stateFile: path.join(ROOT, '.local', 'qbo-sandbox.json'),
      });
  // The company's bank (ODFI): NACHA files go up over SFTP, acknowledgements, returns and NOCs come
  // back; its users, rules, received files and owed answers are kept in .local/bank-sandbox.
  const bank = await startBankSandbox({
    stateDir: path.join(ROOT, '.local', 'bank-sandbox'),
    sftpPort: Number(process.env.BILLFLOW_BANK_SFTP_PORT ?? 4022),
    hooksPort: Number(process.env.BILLFLOW_BANK_HOOKS_PORT ?? 4023),
    host: '127.0.0.1',
    users: demoBankUsers,
    rules: demoBankRules,
  });
  ensureWebBuild();

  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: services.redisUrl,
    JWT_SECRET: process.env.JWT_SECRET ?? secrets.JWT_SECRET,
    ENCRYPTION_KEY: process.env.ENCRYPTION_KEY ?? secrets.ENCRYPTION_KEY,
    ADMIN_PASSWORD: process.env.ADMIN_PASSWORD ?? secrets.ADMIN_PASSWORD,
    SMTP_URL: process.env.SMTP_URL ?? `smtp://127.0.0.1:${smtpPort}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...(sandbox ? { QBO_OAUTH_BASE: sandbox.url, QBO_API_BASE: sandbox.url } : {}),
  });
  const started = await startApp(config);
  const demo = await seedDemoData(
    started.app,
    sandbox && started.url
      ? { url: sandbox.url, gatewayUrl: started.url, app: demoApp, shortLivedApp }
      : undefined,
    bank,
  );

  const lines = [
    '',
    `  Billflow is running at ${started.url}`,
    '',
    `  Sign in as the admin:  ${config.ADMIN_EMAIL}  /  ${config.ADMIN_PASSWORD}`,
    ...demo.map((u) => `  Demo ${u.role.padEnd(9)}         ${u.email}  /  ${u.password}`),
    catcher ? `  Outgoing mail inbox:  http://127.0.0.1:${inboxPort}` : `  Mail goes to ${config.SMTP_URL}`,
    sandbox
      ? `  QuickBooks simulator: ${sandbox.url}  (app ${demoApp.clientId} / ${demoApp.clientSecret})`
      : `  QuickBooks:           ${config.QBO_OAUTH_BASE}`,
    `  Bank sandbox (SFTP): sftp://127.0.0.1:${bank.sftpPort}  (ODFI ${DEMO_ODFI_ROUTING}, user ${demoBankUsers[0].username} / ${demoBankUsers[0].password}; host key ${bank.hostKeyFingerprint()})`,
    `  GraphQL:              ${started.url}/graphql     Metrics: ${started.metricsUrl ?? 'off'}`,
    '',
    '  Press Ctrl+C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = async () => {
    process.stdout.write('Stopping…\n');
    // However the closes fare (Redis or Postgres gone), the process ends within 10 s.
    setTimeout(() => {
      process.stderr.write('Did not stop in time; exiting.\n');
      process.exit(1);
    }, 9000).unref();
    await started.close();
    await catcher?.stop();
    await sandbox?.close();
    await bank.close();
    await services.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err?.stack ?? String(err))}\n`);
  process.exit(1);
});
