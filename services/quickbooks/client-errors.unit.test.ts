// The QuickBooks client's reading of failures: no answer (a time-out, a refused
// connection) is a transient QbApiError with status 0, which a job retries with backoff; Intuit's
// XML faults and the lowercase `fault` are read with their code and Detail; and every answer's
// intuit_tid stays in the error's message.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QbApiError, QbThrottledError, QuickBooksClient } from './client.js';

let server: Server;
let base = '';
const answers: Array<{ status: number; type: string; body: string; headers?: Record<string, string> }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes('/hang')) return; // never answers
    const a = answers.shift() ?? { status: 200, type: 'application/json', body: '{}' };
    res.writeHead(a.status, { 'content-type': a.type, intuit_tid: '1-tid-under-test', ...a.headers });
    res.end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const failure = (p: Promise<unknown>) => p.then(() => null).catch((e: unknown) => e as QbApiError);

describe('QuickBooks client failures', () => {
  it('reads a time-out and a refused connection as transient (status 0)', async () => {
    const slow = new QuickBooksClient({ apiBase: base, timeoutMs: 200 });
    const timedOut = await failure(slow.get(true, 'hang', 't', 'companyinfo/1'));
    expect(timedOut).toBeInstanceOf(QbApiError);
    expect(timedOut).toMatchObject({ status: 0, code: 'TIMEOUT', transient: true });
    const closed = new QuickBooksClient({ apiBase: 'http://127.0.0.1:9' });
    const refused = await failure(closed.get(true, '1', 't', 'companyinfo/1'));
    expect(refused).toMatchObject({ status: 0, code: 'NETWORK', transient: true });
  });

  it('reads XML faults, the lowercase fault, and keeps intuit_tid', async () => {
    const client = new QuickBooksClient({ apiBase: base, retries: 0 });
    answers.push({
      status: 401,
      type: 'application/xml',
      body: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><IntuitResponse xmlns="http://schema.intuit.com/finance/v3" time="2020-08-18T21:08:26.926-07:00"><Fault type="AuthenticationFault"><Error code="100"><Message>General Authentication Error</Message><Detail>AuthenticationErrorGeneral: SRV-110-Authentication Failure , statusCode: 401</Detail></Error></Fault></IntuitResponse>',
    });
    const xml = await failure(client.get(true, '1', 't', 'companyinfo/1'));
    expect(xml).toMatchObject({ status: 401, code: '100', intuitTid: '1-tid-under-test', transient: false });
    expect(xml?.message).toMatch(/^General Authentication Error: AuthenticationErrorGeneral/);
    expect(xml?.message).toMatch(/\(intuit_tid 1-tid-under-test\)$/);
    answers.push({
      status: 403,
      type: 'application/json',
      body: '{"warnings":null,"fault":{"error":[{"message":"message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403","detail":null,"code":"3100","element":null}],"type":"SERVICE"},"time":1640612353707}',
    });
    const forbidden = await failure(client.get(true, '1', 't', 'companyinfo/1'));
    expect(forbidden).toMatchObject({ status: 403, code: '3100' });
    expect(forbidden?.message).toMatch(/refused this app access to the company \(3100\)/);
    // Intuit has sent its throttle fault in XML under 403 (python-quickbooks#43): a throttle all the same.
    answers.push({
      status: 403,
      type: 'application/xml',
      body: '<IntuitResponse><Fault type="SERVICE"><Error code="3001"><Message>message=ThrottleExceeded; errorCode=003001; statusCode=403</Message><Detail>The request limit was reached.  Try again later</Detail></Error></Fault></IntuitResponse>',
    });
    const throttled = await failure(client.get(true, '1', 't', 'companyinfo/1'));
    expect(throttled).toBeInstanceOf(QbThrottledError);
    expect((throttled as QbThrottledError).retryAfterMs).toBe(60_000);
  });
});
