// A subscription tells its client when it is live. A screen reads its data over HTTP and opens its
// subscription over the socket at the same time; a change committed after the read but before the
// gateway took the subscription was never pushed, and the screen stayed stale until the next change.
// A client that sends `extensions: { subscribedAck: true }` gets one first message, SUBSCRIBED, sent
// once the subscription's source is listening; it re-reads what the subscription covers then
// (web/src/lib/urql.ts). Clients that do not ask see the stream as before.
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';

/** What a subscription's execution gives: a stream, or errors when it could not start. */
type SubscribeResult = ExecutionResult | AsyncIterable<ExecutionResult>;

export const SUBSCRIBED: ExecutionResult = { data: null, extensions: { subscribed: true } };

export function wantsSubscribedAck(extensions: unknown): boolean {
  return (
    typeof extensions === 'object' &&
    extensions !== null &&
    (extensions as { subscribedAck?: unknown }).subscribedAck === true
  );
}

/**
 * The stream with SUBSCRIBED before its first result. The source is started (its first `next()`
 * called) before SUBSCRIBED is handed out: our sources join the live fan-out synchronously when
 * started (live.ts), generator filters such as inStaffScope included, so every notice published
 * after the client sees SUBSCRIBED reaches it. An error result (not a stream) passes unchanged.
 */
export async function withSubscribedAck(
  result: SubscribeResult | Promise<SubscribeResult>,
): Promise<SubscribeResult> {
  const settled = await result;
  if (!isAsyncIterable(settled)) return settled;
  const source = settled[Symbol.asyncIterator]();
  const first = source.next();
  // Handled when the consumer takes it; until then a failed start must not be an unhandled rejection.
  first.catch(() => {});
  let step = 0;
  const stream: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]: () => stream,
    next() {
      step += 1;
      if (step === 1) return Promise.resolve({ done: false, value: SUBSCRIBED });
      if (step === 2) return first;
      return source.next();
    },
    return(value?: unknown) {
      return source.return ? source.return(value) : Promise.resolve({ done: true, value: undefined });
    },
    throw(error?: unknown) {
      return source.throw ? source.throw(error) : Promise.reject(error);
    },
  };
  return stream;
}
