// What the approvals bench measures and the data it appends: its figures' shape, the status mix of
// the 100,000 approvals, and their synthetic bills (bench/approvals.ts).
export interface ApprovalFigures {
  approvals: number;
  clients: number;
  graphql: ListFigures;
  rest: ListFigures;
  /**
   * GraphQL asking for every field a REST row carries: the same page in about REST's bytes, so that
   * REST's distance from it is the paths' own, not their answers' sizes (no target).
   */
  graphqlAll: ListFigures;
  detail: { requests: number; p50: number; p99: number };
  change: {
    changes: number;
    pushP50: number;
    pushP99: number;
    statsP50: number;
    statsP99: number;
    /** The slowest change (with 60 changes, the p99 was this one). */
    statsMax: number;
  };
  /** Bulk approve of 100 PENDING approvals, request → answer, ms over a few batches. */
  bulk: { batches: number; p50: number; max: number };
  setupSeconds: number;
}

export interface ListFigures {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU per request, µs: the gateway process, Postgres (every backend), this client. */
  cpuUs: { gateway: number; postgres: number; client: number };
  /** An answer's bytes, on average (REST's page carries every field of each row, GraphQL's those asked). */
  bytes: number;
}

export const qbApp = { clientId: 'billflow-bench', clientSecret: 'bench-secret-value-0001' };
/**
 * Status changes measured. A p99 of 60 was the slowest of them, one stall of the host; of 200 it is
 * the second slowest (the slowest is printed beside it).
 */
export const CHANGES = 200;
export const BULK_BATCHES = 5;
export const STATUSES = [
  'PENDING',
  'PENDING',
  'PENDING',
  'PENDING',
  'APPROVED',
  'APPROVED',
  'APPROVED',
  'REJECTED',
  'REJECTED',
  'EXPIRED',
];
export const PRIORITIES = ['URGENT', 'HIGH', 'MEDIUM', 'LOW'] as const;

export function syntheticBills(n: number, i: number) {
  return Array.from({ length: n }, (_, j) => ({
    Id: `syn-${i}-${j}`,
    DocNumber: `INV-${i}-${j}`,
    TxnDate: '2026-10-01',
    DueDate: '2026-12-01',
    TotalAmt: 100 + ((i * 7 + j * 13) % 5000),
    Balance: 100 + ((i * 7 + j * 13) % 5000),
    CurrencyRef: 'USD',
    VendorRef: { value: String(1 + ((i + j) % 40)), name: `Vendor ${(i + j) % 40}` },
    VendorInfo: { CompanyName: `Vendor ${(i + j) % 40}` },
    VendorAddr: {
      Line1: '1 Main St',
      City: 'Springfield',
      CountrySubDivisionCode: 'CA',
      PostalCode: '90001',
    },
    Line: [
      { Id: '1', Description: 'Supplies', Amount: 100, Qty: 1, ItemName: 'Supplies', AccountName: null },
    ],
    AttachableId: null,
    InvoiceFileName: null,
  }));
}
