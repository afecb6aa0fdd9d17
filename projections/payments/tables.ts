// The payments module's read-model tables as kysely sees them (projections/database.ts composes them
// into the read-model database).
import type { ParkedEntry } from '../../schema/payments/events.js';

/** One entry of a Billflow file, by its trace number: what the bank did with it. */
export interface PaymentEntriesTable {
  trace_number: string;
  approval_id: string;
  company_id: number;
  qb_vendor_id: string;
  vendor_name: string;
  amount_cents: number;
  account_last4: string;
  file_id: string;
  file_name: string;
  effective_date: string;
  created_at: Date;
  /** 'sent' until the bank returns it. */
  status: 'sent' | 'returned';
  return_code: string | null;
  return_description: string | null;
  return_action: string | null;
  returned_at: Date | null;
  change_code: string | null;
  change_description: string | null;
  corrected_account_last4: string | null;
  corrected_routing_last4: string | null;
  correction_due_by: string | null;
  correction_received_at: Date | null;
  /** What the entry paid per bill. */
  bills: Array<{ billId: string; amountCents: number }>;
}

/** One file the bank sent back. */
export interface AchInboundFilesTable {
  file_id: string;
  file_name: string;
  source: 'sftp' | 'upload' | 'cli';
  by_user_id: number | null;
  status: 'received' | 'applied' | 'refused';
  returns: number;
  corrections: number;
  other: number;
  applied: number | null;
  already_applied: number | null;
  parked: ParkedEntry[];
  reasons: string[];
  received_at: Date;
  applied_at: Date | null;
}

/** An approval's file on its way to the bank over SFTP (the latest one scheduled). */
export interface AchDeliveriesTable {
  approval_id: string;
  company_id: number;
  file_id: string;
  version: number;
  file_name: string;
  status: 'scheduled' | 'delivered' | 'failed';
  window_at: Date | null;
  delivered_at: Date | null;
  size: number | null;
  sha256: string | null;
  found_there: boolean | null;
  bank_answer: 'acknowledged' | 'rejected' | null;
  bank_text: string | null;
  failure: string | null;
  updated_at: Date;
}

export interface PaymentsTables {
  payment_entries: PaymentEntriesTable;
  ach_inbound_files: AchInboundFilesTable;
  ach_deliveries: AchDeliveriesTable;
}
