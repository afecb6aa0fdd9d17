// The approval module's read-model tables as kysely sees them (projections/database.ts composes them
// into the read-model database).
import type { z } from 'zod';
import type {
  ApprovalStatus,
  BillSnapshot,
  ConfirmedDuplicate,
  Priority,
} from '../../schema/approvals/events.js';
import type { QbSyncDetailItem } from '../../schema/approvals/payment-answers.js';
import type { NachaProblem, PaymentJob, QbSyncStatus } from '../../schema/approvals/payment-events.js';

/** The payment half of an approval's row (PaymentFields): file ids, counts, totals; never an account number. */
export interface ApprovalPaymentColumns {
  nacha_status: 'REQUESTED' | 'GENERATED' | 'FAILED' | null;
  nacha_version: number;
  nacha_file_id: string | null;
  nacha_file_name: string | null;
  nacha_batch_number: number | null;
  nacha_generated_at: Date | null;
  nacha_effective_date: string | null;
  nacha_entry_count: number | null;
  nacha_total_cents: number | null;
  nacha_problems: NachaProblem[];
  nacha_skipped_bills: Array<{ billId: string; docNumber: string | null; reason: string }>;
  penny_test_file_id: string | null;
  penny_test_file_name: string | null;
  penny_test_batch_number: number | null;
  penny_test_cents: number | null;
  penny_test_vendor_count: number | null;
  penny_test_generated_at: Date | null;
  bank_uploaded_at: Date | null;
  payment_completed_at: Date | null;
  qb_sync_status: QbSyncStatus | null;
  qb_sync_message: string | null;
  qb_sync_at: Date | null;
  qb_sync_items: Array<z.infer<typeof QbSyncDetailItem>>;
  /** A payment job that failed for good, until its step goes through (PaymentJobFailed). */
  payment_job_problem: { job: PaymentJob; jobId: string; queue: string; reason: string; at: string } | null;
  /** The current step's e-mail link: when it was last sent, and when that sending's links expire. */
  payment_link_sent_at: Date | null;
  payment_link_expires_at: Date | null;
  /** Why staff confirmed the step in the app (null: by a link, or before reasons were asked for). */
  bank_upload_reason: string | null;
  payment_completed_reason: string | null;
  /** What the bank did after the file: every entry of it returned, or some (null: none came back). */
  bank_payment_state: 'RETURNED' | 'PARTLY_RETURNED' | null;
  /** The bills of the entries the bank returned: their vendors were not paid. */
  returned_bill_ids: string[];
  /** The trace numbers of the entries the bank returned. */
  returned_traces: string[];
}

export interface ApprovalsTable extends ApprovalPaymentColumns {
  id: string;
  company_id: number;
  status: ApprovalStatus;
  priority: Priority;
  /** URGENT 0 … LOW 3: sorts by urgency, not by name. */
  priority_rank: number;
  manager_id: number | null;
  bill_ids: string[];
  /** The bills' QuickBooks vendors, once each: where a list reads their bank detail changes. */
  vendor_qb_ids: string[];
  approved_bill_ids: string[];
  bill_count: number;
  approved_bill_count: number;
  /** numeric: pg answers strings; the reads turn them into numbers. */
  total_amount: string;
  approved_amount: string;
  bills: BillSnapshot[];
  confirmed_duplicates: ConfirmedDuplicate[];
  created_by: number | null;
  approved_by: number | null;
  first_approved_by: number | null;
  first_approved_at: Date | null;
  awaiting_second_approval: boolean;
  rejected_by: number | null;
  rejection_reason: string | null;
  approval_date: Date | null;
  rejection_date: Date | null;
  expired_at: Date | null;
  expires_at: Date;
  deleted: boolean;
  deleted_at: Date | null;
  deleted_by: number | null;
  created_at: Date;
  updated_at: Date;
  search_text: string;
}

/**
 * Running totals per company, status and priority (approvals not deleted): the list's total without a
 * search, the stat cards and the dashboard figure read these few rows instead of counting 100,000.
 */
export interface ApprovalCountsTable {
  company_id: number;
  status: ApprovalStatus;
  priority: Priority;
  n: number;
  bills: number;
  approved_bills: number;
  amount: string;
  approved_amount: string;
}

export interface ApprovalsTables {
  approvals: ApprovalsTable;
  approval_counts: ApprovalCountsTable;
}

export interface ApprovalPoliciesTable {
  company_id: number;
  creator_may_not_approve: boolean;
  /** numeric: pg answers a string; null: one approval is always enough. */
  second_approval_threshold: string | null;
  /** Only assigned staff see and act on the company's approvals (services/app/staff-scope.ts). */
  assigned_staff_only: boolean;
  updated_at: Date;
}

export interface ApprovalPoliciesTables {
  approval_policies: ApprovalPoliciesTable;
}

/** A company's control on bank detail changes (projections/approvals/banking-controls.ts). */
export interface BankingControlsTable {
  company_id: number;
  enabled: boolean;
  /** How many days a change is flagged where money is decided. */
  flag_days: number;
  set_by: number | null;
  set_at: Date;
}

export interface BankingControlsTables {
  banking_controls: BankingControlsTable;
}

/** The approval module's read models (its projections are typed by it, as the module is). */
export type ApprovalReadTables = ApprovalsTables & ApprovalPoliciesTables & BankingControlsTables;
