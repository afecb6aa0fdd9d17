// QuickBooks webhooks: Intuit POSTs what changed in a company, signed with the
// app's verifier token (`intuit-signature`: base64 HMAC-SHA256 of the raw body). The payload names
// realms and entity ids only, so each named realm's company gets the same incremental sync a person
// asks for (CDC since the last one). The same notification delivered twice queues nothing twice.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { QbWebhookAnswer } from '../../schema/vendors/answers.js';
import type { AppServices } from '../app/context.js';
import { AppError } from '../shared/errors.js';
import { vendorSyncDecider } from './vendor-sync-decider.js';

/** Intuit's signature: base64(HMAC-SHA256(raw body, verifier token)). */
export function intuitSignature(body: Buffer | string, verifierToken: string): string {
  return createHmac('sha256', verifierToken).update(body).digest('base64');
}

export function signatureValid(body: Buffer, header: unknown, verifierToken: string): boolean {
  if (typeof header !== 'string' || header.length === 0 || header.length > 200) return false;
  const want = Buffer.from(intuitSignature(body, verifierToken), 'base64');
  const got = Buffer.from(header, 'base64');
  return got.length === want.length && timingSafeEqual(got, want);
}

/**
 * The realms a notification names: `eventNotifications[].realmId` (Intuit's payload), or
 * `[].intuitaccountid` (the CloudEvents payload Intuit moves webhooks to).
 */
export function notifiedRealms(payload: unknown): string[] {
  const ids: unknown[] = [];
  const p = payload as { eventNotifications?: unknown };
  if (Array.isArray(p?.eventNotifications))
    for (const n of p.eventNotifications) ids.push((n as { realmId?: unknown } | null)?.realmId);
  else if (Array.isArray(payload))
    for (const e of payload) ids.push((e as { intuitaccountid?: unknown } | null)?.intuitaccountid);
  return [...new Set(ids.filter((x): x is string => typeof x === 'string' && /^\d{1,32}$/.test(x)))];
}

/** A sync id (uuid-shaped) derived from the notification: the same delivery, the same sync. */
const derivedId = (seed: string) => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * POST /api/quickbooks/webhook: checks the signature over the raw body, then requests a vendor sync
 * (incremental after the first) for each connected company of a named realm. Answers the realms
 * queued. Without a verifier token configured the endpoint does not exist (404).
 */
export async function receiveQbWebhook(
  app: AppServices,
  rawBody: Buffer,
  signature: unknown,
): Promise<QbWebhookAnswer> {
  const verifier = app.config.QBO_WEBHOOK_VERIFIER_TOKEN;
  if (!verifier) throw new AppError('NOT_FOUND', 'QuickBooks webhooks are not configured');
  if (!signatureValid(rawBody, signature, verifier))
    throw new AppError('UNAUTHENTICATED', 'The intuit-signature does not match');
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new AppError('VALIDATION', 'The notification is not JSON');
  }
  const realms = notifiedRealms(payload).slice(0, 100);
  if (realms.length === 0) return { queued: 0 };
  const companies = await app.db
    .selectFrom('companies')
    .select(['id', 'qb_realm_id'])
    .where('qb_realm_id', 'in', realms)
    .where('deleted_at', 'is', null)
    .where('qb_connection_status', '!=', 'disconnected')
    .execute();
  const digest = createHash('sha256').update(rawBody).digest('hex');
  let queued = 0;
  for (const c of companies) {
    const seed = `qbo-webhook:${digest}:${c.id}`;
    // The command's id comes from the notification: a repeated delivery appends nothing, and the
    // job's id derives from the one event (workers/vendors/reactions.ts), so it runs once.
    const r = await app.commands.handle(
      vendorSyncDecider,
      vendorSyncDecider.streamId(c.id),
      {
        type: 'RequestVendorSync',
        syncId: derivedId(seed),
        companyId: c.id,
        limit: 1000,
        offset: 0,
        now: new Date().toISOString(),
      },
      { userId: null, commandId: seed },
    );
    if (r.events.length > 0 && !r.duplicate) queued++;
  }
  return { queued };
}
