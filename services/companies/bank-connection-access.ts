// The kernel's bank connection port (services/app/bank-connections.ts) as the companies module keeps
// it: the connection opened from the company's stream (its secret sealed there), the SFTP companies
// from the read model, and a session with the bank through withBankSftp.
import { sql } from 'kysely';
import type { BankConnectionSettings as StoredConnection } from '../../schema/companies/events.js';
import type {
  BankConnectionAccess,
  BankConnectionSettings,
  SftpBankConnection,
} from '../app/bank-connections.js';
import type { AppServices } from '../app/context.js';
import { AppError } from '../shared/errors.js';
import { withBankSftp } from './bank-sftp.js';
import { load } from './company-command.js';

/** The stored SFTP connection as a session needs it; null when the files go by hand. */
export function toSftpConnection(s: StoredConnection): SftpBankConnection | null {
  // A forgotten company's secret loads erased (null): nothing to log in with.
  if (s.mode !== 'sftp' || (!s.password && !s.privateKey)) return null;
  return {
    mode: 'sftp',
    host: s.host!,
    port: s.port!,
    username: s.username!,
    ...(s.privateKey ? { privateKey: s.privateKey } : { password: s.password! }),
    inbox: s.inbox!,
    outbox: s.outbox!,
    hostKeyFingerprint: s.hostKeyFingerprint!,
    windows: [...s.windows],
  };
}

export const NOT_SFTP = 'This company sends its files to the bank by hand: there is no SFTP connection';

async function connection(app: AppServices, companyId: number): Promise<BankConnectionSettings> {
  const state = await load(app, companyId);
  return toSftpConnection(state.bank) ?? { mode: 'manual' };
}

/** The kernel's bank connection port on this app (composed in services/main.ts). */
export function companiesBankConnections(app: () => AppServices): BankConnectionAccess {
  return {
    connection: (companyId) => connection(app(), companyId),
    async sftpCompanies() {
      const rows = await app()
        .db.selectFrom('companies')
        .select('id')
        .where('deleted_at', 'is', null)
        .where(sql<boolean>`bank_connection->>'mode' = 'sftp'`)
        .orderBy('id')
        .execute();
      return rows.map((r) => r.id);
    },
    async withSftp(companyId, work, options) {
      const conn = await connection(app(), companyId);
      if (conn.mode !== 'sftp') throw new AppError('CONFLICT', NOT_SFTP);
      return withBankSftp(conn, work, { workTimeoutMs: options?.timeoutMs });
    },
  };
}
