// The simulator's options and the records it keeps: registered apps, grants and their codes and
// tokens, fault rules, the request log.
import type { FastifyInstance } from 'fastify';
import type { Realm } from './seed.js';

export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  /** Registered redirect URIs; empty: any http(s) URI is accepted (local demos). */
  redirectUris?: string[];
  /** Access-token lifetime for this app, seconds (default: the sandbox's). */
  accessTtlSeconds?: number;
}

export interface SandboxOptions {
  clients: SandboxClient[];
  /** Access-token lifetime, seconds (Intuit: 3600). */
  accessTtlSeconds?: number;
  /** Rolling refresh-token lifetime, seconds (Intuit: 8726400, ~101 days). */
  refreshTtlSeconds?: number;
  /** How long a rotated-away refresh token still works, seconds (Intuit: 24 h). */
  rotationGraceSeconds?: number;
  /** Authorization-code lifetime, seconds. */
  codeTtlSeconds?: number;
  /** Requests per minute per realm, and at once per realm (Intuit: 500 and 10). */
  ratePerMinute?: number;
  concurrentPerRealm?: number;
  /**
   * Requests a second per realm and app (Intuit's limits page, blog 2025-08-13: 10). Default:
   * `concurrentPerRealm` or 10.
   */
  ratePerSecond?: number;
  /** The long window of `ratePerMinute`, seconds, and the wait a 429 asks for (Intuit: 60). */
  rateWindowSeconds?: number;
  seed?: number;
  /** Vendors in each realm, or per realm in the seed's order (default: 24 – 39, drawn). */
  vendorsPerRealm?: number | readonly (number | undefined)[];
  /** Open bills in each realm (default: 70 – 109, drawn). */
  billsPerRealm?: number;
  /**
   * Absolute refresh-token lifetime from the grant's consent, seconds (Intuit: 5 years, returned as
   * `x_refresh_token_hard_expires_in` when asked for; blogs.intuit.com/2025/11/12).
   */
  refreshHardTtlSeconds?: number;
  /**
   * A JSON file that keeps the state (companies, grants, codes, tokens, bills, payments, vendors,
   * requestid replays) across restarts, as Intuit keeps it: loaded at start when present, written
   * atomically (a temporary file renamed over it) after every change. Absent: memory only (tests).
   */
  stateFile?: string;
}

export interface Grant {
  id: string;
  clientId: string;
  realmId: string;
  revoked: boolean;
  /** The refresh token's hard cap: no refresh after this, whatever the rolling expiry says. */
  hardExpiresAt?: number;
}

export interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

export interface RefreshToken {
  grant: Grant;
  expiresAt: number;
  /** Set once rotated: the token still works until then. */
  graceUntil: number | null;
}

export interface Code {
  clientId: string;
  redirectUri: string;
  realmId: string;
  expiresAt: number;
  used: boolean;
  grant: Grant | null;
}

export interface FaultRule {
  method?: string;
  /** A regular expression over the path (no query). */
  path?: string;
  realmId?: string;
  /**
   * Only requests about this bill: its own path (`/bill/<id>`), or a body whose lines link it
   * (a BillPayment's `Line[].LinkedTxn[]` with `TxnType: 'Bill'`). Fails one chosen bill of a run.
   */
  billId?: string;
  /** How many matching requests it applies to (default: all). */
  count?: number;
  probability?: number;
  latencyMs?: number;
  /** throttle (429/3001), unauthorized (401 lowercase fault), validation (400), server (500), unavailable (503), invalid_grant (400 on the token endpoint). */
  kind?:
    | 'throttle'
    | 'unauthorized'
    | 'forbidden'
    | 'validation'
    | 'stale'
    | 'server'
    | 'unavailable'
    | 'invalid_grant';
  /** Answer as XML instead of JSON, as Intuit sometimes does. */
  xml?: boolean;
  /**
   * The request is carried out as usual, then its answer is replaced by the fault (`server` or
   * `unavailable`): an answer lost on the way back, the write done in QuickBooks all the same.
   */
  afterWrite?: boolean;
}

export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  realmId: string | null;
  status: number;
  requestId: string | null;
  /** A BillPayment create that paid: the bills it paid (absent on a replay of its requestid or a refusal). */
  paidBillIds?: string[];
}

export interface QboSandbox {
  server: FastifyInstance;
  url: string;
  close(): Promise<void>;
  /** The seeded companies (read-only use in tests and demos). */
  realms(): Realm[];
}
