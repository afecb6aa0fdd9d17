// Voiding a BillPayment in QuickBooks, as Intuit's API does it: `POST …/billpayment?operation=update
// &include=void` with its Id and current SyncToken (a sparse update). The record stays, its amounts
// zeroed and its lines cleared, "Voided" put before its note; the bills it paid are open again.
// Exactly once: the payment is read first, and one already voided (an earlier run whose answer was
// lost) is taken as done; a stale SyncToken (someone changed it meanwhile) is read again and retried.
import type { AppServices } from '../../app/context.js';
import type { QbAccess } from '../../app/quickbooks-access.js';
import { QbApiError, type QbBillPayment, QbThrottledError } from '../../quickbooks/client.js';
import { isThrottleFault, qbApiError } from '../../quickbooks/client-errors.js';

const INTUIT_API = {
  sandbox: 'https://sandbox-quickbooks.api.intuit.com',
  live: 'https://quickbooks.api.intuit.com',
};

/** A BillPayment that a void has zeroed: Intuit keeps it with "Voided" before its note. */
export const isVoided = (p: Pick<QbBillPayment, 'TotalAmt'> & { PrivateNote?: unknown }) =>
  Number(p.TotalAmt) === 0 && typeof p.PrivateNote === 'string' && p.PrivateNote.startsWith('Voided');

async function readPayment(access: QbAccess, id: string): Promise<QbBillPayment> {
  const r = await access.client.get<{ BillPayment: QbBillPayment }>(
    access.isSandbox,
    access.realmId,
    access.auth,
    `billpayment/${encodeURIComponent(id)}`,
  );
  return r.BillPayment;
}

async function postVoid(app: AppServices, access: QbAccess, payment: QbBillPayment, token: string) {
  const base = (app.config.QBO_API_BASE ?? (access.isSandbox ? INTUIT_API.sandbox : INTUIT_API.live)).replace(
    /\/$/,
    '',
  );
  const url = new URL(`${base}/v3/company/${encodeURIComponent(access.realmId)}/billpayment`);
  url.searchParams.set('operation', 'update');
  url.searchParams.set('include', 'void');
  url.searchParams.set('minorversion', '75');
  let res: Response;
  let body: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ Id: payment.Id, SyncToken: payment.SyncToken, sparse: true }),
      signal: AbortSignal.timeout(30_000),
    });
    body = await res.text();
  } catch (err) {
    // No answer: the void may or may not be made; the next run reads the payment first.
    throw new QbApiError(`QuickBooks did not answer the void: ${(err as Error).message}`, 0, null);
  }
  const tid = res.headers.get('intuit_tid');
  if (res.ok) return (JSON.parse(body) as { BillPayment: QbBillPayment }).BillPayment;
  if (res.status === 429 || isThrottleFault(body)) {
    const after = Number(res.headers.get('retry-after'));
    throw new QbThrottledError(Number.isFinite(after) && after > 0 ? after * 1000 : 60_000, tid);
  }
  throw qbApiError(res.status, body, tid);
}

/**
 * Voids one BillPayment (read first: one voided already is done). A throttle goes up as
 * QbThrottledError (the job waits it out); a refusal as QbApiError with Intuit's words.
 */
export async function voidBillPayment(app: AppServices, access: QbAccess, id: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const payment = await readPayment(access, id);
    if (isVoided(payment)) return;
    try {
      let voided: QbBillPayment;
      try {
        voided = await postVoid(app, access, payment, access.auth.token);
      } catch (err) {
        if (!(err instanceof QbApiError) || err.status !== 401) throw err;
        voided = await postVoid(app, access, payment, await access.auth.renew());
      }
      if (!isVoided(voided)) throw new QbApiError(`QuickBooks did not void bill payment ${id}`, 502, null);
      return;
    } catch (err) {
      // Someone changed the payment since it was read: read it again, once.
      if (err instanceof QbApiError && err.code === '5010' && attempt === 0) continue;
      throw err;
    }
  }
}
