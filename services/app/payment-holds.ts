// The kernel's port to the payments held, kept by the approvals module: the dashboard counts them by
// the approvals list's own problem filters (so its figures and the filtered list agree) without
// reading the approvals module's files.

export interface PaymentHoldCounts {
  /** Someone must act (the list's problem=any). */
  attention: number;
  /** The file only waits for the next banking day (problem=waiting). */
  waiting: number;
}

export interface PaymentHoldAccess {
  counts(): Promise<PaymentHoldCounts>;
}
