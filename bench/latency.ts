// Command-to-subscriber latency: mutations sent on one connection at a steady 100 commands/s, the
// matching subscription messages received on another connection (graphql-ws), through the whole
// path: gateway → decider → event store → projector → Redis → gateway → WebSocket.
import http from 'node:http';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { percentile, request } from './measure.js';

export interface LatencyFigures {
  commands: number;
  received: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** The mutation's own round trip (it answers after the read model caught up). */
  mutationP50: number;
  mutationP99: number;
}

/** A keep-alive POST's body (measure.ts: the client shares the 2 vCPUs with the product). */
const post = (agent: http.Agent, url: URL, headers: Record<string, string>, body: string) =>
  request(agent, url, 'POST', headers, body).then((r) => r.text);

export async function benchLatency(
  baseUrl: string,
  token: string,
  userIds: number[],
  rate = 100,
  seconds = 10,
  warmupSeconds = 3,
  /** Called when the counted phase starts and when its last push has arrived (CPU accounting). */
  hooks: { countedStart?(): void; countedEnd?(): void } = {},
): Promise<LatencyFigures> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  // BENCH_TRACE=1: every counted command's send time, push latency and answer time, to find where a
  // tail comes from (spread out, or in bursts).
  const trace: Array<[number, number, number]> = [];
  const traceIndex = new Map<string, number>();
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { token },
  });
  await new Promise<void>((resolve, reject) => {
    client.subscribe(
      { query: 'subscription { userChanged { id type user { lastName } } }' },
      {
        next: (msg: any) => {
          const lastName = msg.data?.userChanged?.user?.lastName as string | undefined;
          const t = lastName ? sentAt.get(lastName) : undefined;
          if (t !== undefined) {
            latencies.push(performance.now() - t);
            const i = traceIndex.get(lastName!);
            if (i !== undefined) trace[i][1] = performance.now() - t;
            sentAt.delete(lastName!);
          }
        },
        error: reject,
        complete: () => {},
      },
    );
    client.on('connected', () => setTimeout(resolve, 300));
  });

  // Warm-up first (not counted): the first requests of a fresh process pay for JIT compilation and
  // the first use of each code path; the figure is about the running product.
  const warmup = Math.round(rate * warmupSeconds);
  const total = rate * seconds;
  const interval = 1000 / rate;
  const start = performance.now();
  const inFlight: Promise<unknown>[] = [];
  const mutationMs: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const endpoint = new URL(`${baseUrl}/graphql`);
  for (let n = 0; n < warmup + total; n++) {
    const due = start + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const counted = n >= warmup;
    if (n === warmup) hooks.countedStart?.();
    const marker = counted ? `L${n - warmup}` : `W${n}`;
    const id = userIds[n % userIds.length];
    const sent = performance.now();
    if (counted) {
      sentAt.set(marker, sent);
      traceIndex.set(marker, trace.push([sent - start, Number.NaN, Number.NaN]) - 1);
    }
    inFlight.push(
      post(
        agent,
        endpoint,
        { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        JSON.stringify({
          query: 'mutation($id:Int!,$input:UpdateUserInput!){ updateUser(id:$id, input:$input){ id } }',
          variables: { id, input: { lastName: marker } },
        }),
      ).then(() => {
        if (counted) {
          mutationMs.push(performance.now() - sent);
          trace[traceIndex.get(marker)!][2] = performance.now() - sent;
        }
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  const deadline = performance.now() + 5000;
  while (sentAt.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  hooks.countedEnd?.();
  await client.dispose();
  if (process.env.BENCH_TRACE) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`.local/latency-trace-${rate}.json`, JSON.stringify(trace));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    commands: total,
    received: latencies.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mutationP50: percentile(
      [...mutationMs].sort((a, b) => a - b),
      50,
    ),
    mutationP99: percentile(
      [...mutationMs].sort((a, b) => a - b),
      99,
    ),
  };
}
