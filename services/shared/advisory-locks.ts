// Every Postgres advisory lock Billflow takes, in one place, so that no two uses collide.
// Single-key locks (one bigint) and two-key locks (two ints) are separate spaces in Postgres.

/** Serialises the event store's CREATE … IF NOT EXISTS across processes starting at once. */
export const EVENT_STORE_SETUP_LOCK = 7261001;
/**
 * Serialises the other storage set-up at start (services/main.ts) and the leases' table creation
 * (services/consumers/lease.ts): CREATE … IF NOT EXISTS is not safe against a concurrent twin.
 */
export const STORAGE_SETUP_LOCK = 7261003;
/** Two-key class of the per-stream append locks: pg_advisory_xact_lock(APPEND_LOCK_CLASS, hashtext(stream)). */
export const APPEND_LOCK_CLASS = 7262;
// Consumer leases (one active runner per projection or process manager) use single-key locks keyed
// by a 64-bit hash of the consumer's name (services/consumers/lease.ts, `lockKey`).
// The per-realm QuickBooks refresh lock (formerly class 7263 here) is a Redis lock
// (services/companies/quickbooks-refresh.ts withRefreshLock): waiting on pg_advisory_lock held a pooled connection
// and starved the pool under parallel requests. 7263 stays unused.
