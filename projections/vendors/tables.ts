// The vendors module's read-model tables as kysely sees them (projections/database.ts composes them into
// the read-model database).
import type { Generated } from 'kysely';

export interface VendorsTable {
  id: number;
  company_id: number;
  qb_vendor_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  active: boolean;
  has_banking: boolean;
  routing_last4: string | null;
  account_last4: string | null;
  account_type: 'checking' | 'savings' | null;
  bank_name: string | null;
  banking_updated_at: Date | null;
  /** Blocked after the bank returned a payment: since when, the return's code, words and trace. */
  blocked_at: Date | null;
  block_code: string | null;
  block_description: string | null;
  block_trace: string | null;
  /** Mailed a remittance advice when a file paying it goes to the bank (on unless turned off). */
  remittance_advice: boolean;
  qb_synced_at: Date;
  created_at: Date;
  updated_at: Date;
  search_text: Generated<string>;
}

export interface VendorsTables {
  vendors: VendorsTable;
}

export interface VendorSyncsTable {
  id: string;
  company_id: number;
  status: 'queued' | 'running' | 'completed' | 'failed';
  synced: number;
  failed: number;
  error: string | null;
  requested_at: Date;
  completed_at: Date | null;
}

export interface VendorSyncsTables {
  vendor_syncs: VendorSyncsTable;
}

export interface BankingChangesTable {
  change_id: string;
  vendor_id: number;
  company_id: number;
  status: 'pending' | 'frozen' | 'approved' | 'rejected' | 'live';
  source: 'form' | 'batch' | 'csv' | 'noc';
  routing_last4: string | null;
  account_last4: string | null;
  account_type: 'checking' | 'savings';
  prev_routing_last4: string | null;
  prev_account_last4: string | null;
  requested_by: number | null;
  requested_at: Date;
  decided_by: number | null;
  decided_at: Date | null;
  reason: string | null;
  verified_by: string | null;
  live_at: Date | null;
}

export interface BankingChangesTables {
  vendor_banking_changes: BankingChangesTable;
}

/** The vendor's side of a change: the notice to its contact and the latest micro-deposit verification. */
export interface BankingVerificationsTable {
  change_id: string;
  vendor_id: number;
  company_id: number;
  contact_notice: 'sent' | 'no-contact' | 'undelivered' | null;
  verification_id: string | null;
  md_status: 'sent' | 'confirmed' | 'locked' | null;
  md_tries_left: number | null;
  md_file_id: string | null;
  md_file_name: string | null;
  md_effective_date: string | null;
  md_sent_at: Date | null;
  md_expires_at: Date | null;
  md_started_by: number | null;
  /** The micro-deposit link's e-mail was not delivered (refused, or out of tries). */
  md_link_undelivered: Generated<boolean>;
}

export interface BankingVerificationsTables {
  vendor_banking_verifications: BankingVerificationsTable;
}

/** The read models of the vendor module, as its projections are typed. */
export type VendorReadTables = VendorsTables &
  VendorSyncsTables &
  BankingChangesTables &
  BankingVerificationsTables;
