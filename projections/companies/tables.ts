// The companies module's read-model tables as kysely sees them (projections/database.ts composes them into
// the read-model database).
import type { Generated } from 'kysely';
import type { BankConnectionMode, NachaSettings } from '../../schema/companies/events.js';

export interface CompaniesTable {
  id: number;
  name: string;
  name_lower: string;
  email: string | null;
  phone: string | null;
  website: string | null;
  address: string | null;
  description: string | null;
  industry: string | null;
  status: 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';
  manager_id: number | null;
  processor_id: number | null;
  approver_id: number | null;
  accountant_id: number | null;
  qb_realm_id: string | null;
  qb_connection_status: 'connected' | 'disconnected' | 'error' | null;
  qb_last_refresh: Date | null;
  qb_payment_account_reference: string | null;
  nacha: MaskedNacha | null;
  /** Files made before the same-day deadline are effective the same day. */
  same_day_ach: Generated<boolean>;
  /** Null: never set (files by hand, the default cut-offs). */
  bank_connection: BankConnectionView | null;
  /** The last check of the SFTP connection; null when none since it was set. */
  bank_check: BankConnectionCheckView | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type MaskedNacha = Omit<NachaSettings, 'bankAccountNumber'> & { bankAccountNumber: string };

/** The bank connection as the read model keeps it: whether a secret is set, never the secret. */
export interface BankConnectionView {
  mode: BankConnectionMode;
  host: string | null;
  port: number | null;
  username: string | null;
  passwordSet: boolean;
  keySet: boolean;
  inbox: string | null;
  outbox: string | null;
  hostKeyFingerprint: string | null;
  windows: string[];
}

export interface BankConnectionCheckView {
  ok: boolean;
  message: string;
  host: string;
  hostKeyFingerprint: string | null;
  inboxFiles: number | null;
  outboxFiles: number | null;
  at: string;
}

export interface CompaniesTables {
  companies: CompaniesTable;
}
