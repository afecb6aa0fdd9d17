// What the bench parts share to measure over HTTP: a lean client and percentiles.
import http from 'node:http';

/** The p-th percentile of ascending samples (NaN for none). */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** A lean keep-alive request: the client shares the 2 vCPUs with the product (fetch costs twice the CPU). */
export function request(
  agent: http.Agent,
  url: URL,
  method: 'GET' | 'POST' | 'PUT',
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
