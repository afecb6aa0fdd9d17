// A company's QuickBooks app credentials: the client id and whether it is a sandbox are
// shown; the secret never leaves the server.
import type { QbCredentials } from '../../schema/companies/answers.js';
import { QbCredentialsInput } from '../../schema/companies/quickbooks-commands.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { liveCompany, parseId, qb, record } from './quickbooks.js';

export type QbCredentialsInfo = QbCredentials;

export async function getQbCredentials(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<QbCredentialsInfo> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  await liveCompany(app, companyId);
  const conn = await qb(app).connections.get(companyId);
  // The secret never leaves the server: only whether there is one.
  return {
    hasCredentials: !!conn?.clientId && !!conn.clientSecret,
    qbClientId: conn?.clientId ?? null,
    qbIsSandbox: conn?.isSandbox ?? true,
  };
}

async function saveCredentials(
  app: AppServices,
  actor: Actor,
  companyId: number,
  input: { qbClientId: string; qbClientSecret: string; qbIsSandbox: boolean },
) {
  await liveCompany(app, companyId);
  await qb(app).connections.saveCredentials(
    companyId,
    input.qbClientId,
    input.qbClientSecret,
    input.qbIsSandbox,
  );
  return record(
    app,
    companyId,
    {
      type: 'SaveQbCredentials',
      clientId: input.qbClientId,
      isSandbox: input.qbIsSandbox,
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
}

export async function putQbCredentials(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<QbCredentialsInfo> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(QbCredentialsInput, input);
  await saveCredentials(app, actor, companyId, data);
  return { hasCredentials: true, qbClientId: data.qbClientId, qbIsSandbox: data.qbIsSandbox };
}
