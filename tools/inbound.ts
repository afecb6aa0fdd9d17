// Reads a file the bank sent back (returns, notifications of change) into the running product from
// the command line: `npm run inbound -- RET_20261207_1.ach`. It signs in as the admin (ADMIN_EMAIL /
// ADMIN_PASSWORD, else the ones `npm start` keeps in .local/secrets.json) and uploads the file as
// the screen does, so the same checks, the same seal and the same once-only apply hold.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from './cli.js';
import { localSecret } from './local-secrets.js';

class Refusal extends Error {}

export async function uploadInboundFile(
  file: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ status: number; body: any }> {
  const base = env.BILLFLOW_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`;
  const email = env.ADMIN_EMAIL ?? 'admin@billflow.local';
  const password = env.ADMIN_PASSWORD ?? localSecret('ADMIN_PASSWORD');
  if (!password)
    throw new Refusal('Set ADMIN_PASSWORD (or run `npm start` once, which keeps it in .local/secrets.json)');
  let content: string;
  try {
    content = readFileSync(file, 'latin1');
  } catch {
    throw new Refusal(`Cannot read ${file}`);
  }
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  }).catch(() => {
    throw new Refusal(
      `Billflow does not answer at ${base}: start it with \`npm start\` (or set BILLFLOW_URL)`,
    );
  });
  const signedIn = (await login.json()) as any;
  const token = signedIn?.data?.tokens?.accessToken;
  if (!login.ok || !token)
    throw new Refusal(`Sign-in as ${email} refused: ${signedIn?.message ?? login.status}`);
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), path.basename(file));
  const r = await fetch(`${base}/api/payments/inbound-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: r.status, body: await r.json() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(
    async () => {
      const file = process.argv[2];
      if (!file) throw new Refusal('Usage: npm run inbound -- <file from the bank>');
      const { status, body } = await uploadInboundFile(file);
      if (status !== 200) throw new Refusal(`Refused (${status}): ${body?.message ?? 'no reason given'}`);
      const d = body.data;
      console.log(
        d.appliedNow
          ? `Read ${d.fileName}: ${d.returns} return(s), ${d.corrections} notification(s) of change; ${d.applied} applied, ${d.alreadyApplied} already on record, ${d.parked.length} parked for a person`
          : `${d.fileName} was read before (same content): nothing changed`,
      );
      for (const p of d.parked) console.log(`  parked: line ${p.line} ${p.code ?? ''} ${p.reason}`);
    },
    (err) => err instanceof Refusal,
  );
}
