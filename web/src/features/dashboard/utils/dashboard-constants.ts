// Dashboard constants.

/** The System Health card refetches every 30 s. */
export const HEALTH_REFRESH_MS = 30_000;
/** Recent Activity shows at most the first 5 events. */
export const RECENT_ACTIVITY_LIMIT = 5;
/** The query layer retries a failed call once, after this pause. */
export const RETRY_DELAY_MS = 1_000;
