// Every Postgres advisory lock Billflow takes, in one place, so that no two uses collide.
// Single-key locks (one bigint) and two-key locks (two ints) are separate spaces in Postgres.

/** Serialises the event store's CREATE … IF NOT EXISTS across processes starting at once. */
export const EVENT_STORE_SETUP_LOCK = 7261001;
/**
 * Serialises the other storage set-up at start (services/main.ts) and the leases' table creation
 * (projections/lease.ts): CREATE … IF NOT EXISTS is not safe against a concurrent twin.
 */
export const STORAGE_SETUP_LOCK = 7261003;
/** Two-key class of the per-stream append locks: pg_advisory_xact_lock(APPEND_LOCK_CLASS, hashtext(stream)). */
export const APPEND_LOCK_CLASS = 7262;
// Consumer leases (one active runner per projection or process manager) use single-key locks keyed
// by a 64-bit hash of the consumer's name (projections/lease.ts, `lockKey`).
/**
 * Two-key class of the per-realm QuickBooks refresh lock: pg_advisory_lock(QB_REFRESH_LOCK_CLASS,
 * hashtext(realmId)). Two refreshes of one grant at once would spend the refresh token twice, and
 * Intuit then answers invalid_grant (reference/quickbooks.md §4).
 */
export const QB_REFRESH_LOCK_CLASS = 7263;
