// All configuration comes from the environment, validated once at start. A bad value stops the
// process with one clear line per problem instead of failing later somewhere deep.
import { z } from 'zod';

const urlWithScheme = (schemes: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return schemes.includes(new URL(v).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}` },
  );

const intFromEnv = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  ROLE: z.enum(['all', 'gateway', 'projector', 'worker']).default('all'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFromEnv(0, 65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  /** More origins whose pages may call /graphql with CORS, comma-separated (the app's own always may). */
  CORS_ORIGINS: z
    .string()
    .refine(
      (v) =>
        v.split(',').every((o) => {
          try {
            const url = new URL(o.trim());
            return /^https?:$/.test(url.protocol) && url.origin === o.trim().replace(/\/$/, '');
          } catch {
            return false;
          }
        }),
      'must be origins such as https://app.example.com, comma-separated',
    )
    .optional(),
  /** Port of the loopback listener that serves /metrics (default 9464; 0 when PORT is 0). */
  METRICS_PORT: intFromEnv(0, 65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** When set, /metrics is also served on the public port to `Authorization: Bearer <token>`. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DATABASE_URL: urlWithScheme(['postgres', 'postgresql']),
  REDIS_URL: urlWithScheme(['redis', 'rediss']),
  /** Prefix of every Redis key and channel, so several deployments or tests can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_:-]+$/i, 'letters, digits, _ : - only')
    .default('bf'),
  /** esdb:// or kurrentdb:// selects KurrentDB/EventStoreDB; unset keeps events in Postgres. */
  EVENTSTORE_URL: urlWithScheme([
    'esdb',
    'esdb+discover',
    'kurrentdb',
    'kurrentdb+discover',
    'kurrent',
  ]).optional(),
  ADMIN_EMAIL: z.email().default('admin@billflow.local'),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** 32 bytes, base64: encrypts secrets at rest (AES-256-GCM). */
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64'),
  ACCESS_TOKEN_TTL_SECONDS: intFromEnv(5, 86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: intFromEnv(60, 90 * 86_400).default(30 * 86_400),
  /** A session's absolute end: however often it refreshes, its owner signs in again after this. */
  SESSION_MAX_AGE_SECONDS: intFromEnv(300, 365 * 86_400).default(30 * 86_400),
  /**
   * Which proxies to believe about the client's address (X-Forwarded-For): unset trusts none; 'true'
   * all; a number that many hops; or addresses and CIDRs, comma-separated ('loopback,10.0.0.0/8').
   */
  TRUST_PROXY: z
    .string()
    .regex(
      /^(true|false|\d+|[0-9a-f.:/,\s]+|loopback|linklocal|uniquelocal)(,\s*[0-9a-z.:/]+)*$/i,
      'must be true, false, a hop count or addresses',
    )
    .optional(),
  LOGIN_MAX_FAILURES: intFromEnv(1, 1000).default(5),
  LOGIN_WINDOW_SECONDS: intFromEnv(1, 86_400).default(900),
  /** How long a mutation waits for the read model to reach its write before answering anyway. */
  READ_YOUR_WRITES_TIMEOUT_MS: intFromEnv(0, 60_000).default(5000),
  /**
   * Where the log's anchors are published outside the database, one append-only file per database
   * (services/eventstore/anchor-publish.ts reads it; default: the checkout's .local/anchors/).
   */
  AUDIT_ANCHOR_DIR: z.string().min(1).optional(),
  SMTP_URL: urlWithScheme(['smtp', 'smtps']).optional(),
  MAIL_FROM: z.string().default('Billflow <no-reply@billflow.local>'),
  WEB_DIST: z.string().optional(),
  /** QuickBooks OAuth host (authorize, token, revoke); absent: Intuit's. The simulator: its URL. */
  QBO_OAUTH_BASE: urlWithScheme(['http', 'https']).optional(),
  /** QuickBooks v3 API host; absent: Intuit's sandbox or production host by the company's credentials. */
  QBO_API_BASE: urlWithScheme(['http', 'https']).optional(),
  /** QuickBooks requests per realm in a window, and per second (Intuit: 500 a minute, 10 a second). */
  QBO_RATE_PER_MINUTE: intFromEnv(1, 1_000_000).default(500),
  QBO_RATE_PER_SECOND: intFromEnv(1, 10_000).default(10),
  /** The window of QBO_RATE_PER_MINUTE and the wait after a 429 that names none, seconds (Intuit: 60). */
  QBO_RATE_WINDOW_SECONDS: intFromEnv(1, 3600).default(60),
  /**
   * The app's webhook verifier token from Intuit's developer portal: POST /api/quickbooks/webhook
   * checks `intuit-signature` with it. Absent: the endpoint answers 404 (not configured).
   */
  /**
   * How old the copy of a company's QuickBooks bills may be before a /bills view asks CDC what
   * changed (one request), seconds. 0: every view asks.
   */
  QBO_BILLS_FRESH_SECONDS: intFromEnv(0, 3600).default(30),
  QBO_WEBHOOK_VERIFIER_TOKEN: z.string().trim().min(16).max(200).optional(),
  /** How long an approval may stay PENDING before the expiry job turns it EXPIRED (default 7 days). */
  APPROVAL_EXPIRY_SECONDS: intFromEnv(1, 365 * 86_400).default(7 * 86_400),
  /** How long an e-mail link (confirm bank upload, confirm payment) stays valid, days (default 7). */
  LINK_TTL_DAYS: intFromEnv(1, 90).default(7),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "not set", as they do in .env files.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const key = i.path.join('.');
        const given =
          key in cleaned && !/SECRET|PASSWORD|KEY|TOKEN/.test(key) ? ` (got "${cleaned[key]}")` : '';
        return i.code === 'invalid_type' && !(key in cleaned)
          ? `${key} is required`
          : `${key} ${i.message}${given}`;
      }),
    );
  }
  return parsed.data;
}
