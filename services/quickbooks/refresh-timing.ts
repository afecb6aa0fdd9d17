// When a QuickBooks access token is refreshed: the refresh job is scheduled `lead` before expiry and
// refreshes when less than `window` is left. lead < window for every lifetime, so a job that runs on
// time always refreshes; one that finds more than `window` left is stale (someone refreshed since,
// and that refresh scheduled the next job). Both scale down for short lifetimes (the simulator's
// 60-second demo tokens), so a short token is not refreshed in a loop.
const MINUTE = 60_000;

export const refreshLeadMs = (lifetimeMs: number) => Math.min(5 * MINUTE, lifetimeMs / 4);
export const refreshWindowMs = (lifetimeMs: number) => Math.min(10 * MINUTE, lifetimeMs / 2);

/** The job's delay for a token issued at `issuedAt` that expires at `expiresAt` (0: at once). */
export function refreshDelayMs(issuedAt: Date, expiresAt: Date, now = Date.now()): number {
  const lifetime = Math.max(0, expiresAt.getTime() - issuedAt.getTime());
  return Math.max(0, expiresAt.getTime() - refreshLeadMs(lifetime) - now);
}

/** Whether a token is due for refresh now. */
export function refreshDue(issuedAt: Date, expiresAt: Date, now = Date.now()): boolean {
  const lifetime = Math.max(0, expiresAt.getTime() - issuedAt.getTime());
  return expiresAt.getTime() - now <= refreshWindowMs(lifetime);
}
