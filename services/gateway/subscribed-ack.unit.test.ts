// The SUBSCRIBED marker comes only once the source is listening, and the stream after it is the
// source's own: nothing lost, nothing added, ended with it.
import { type ExecutionResult, GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SUBSCRIBED, wantsSubscribedAck, withSubscribedAck } from './subscribed-ack.js';

/** A source that records when it was started (the live fan-out registers at that moment). */
function source(values: number[]) {
  const seen = { started: false, returned: false };
  const iterable: AsyncIterable<{ data: { n: number } }> = {
    [Symbol.asyncIterator]() {
      seen.started = true;
      let i = 0;
      return {
        next: async () =>
          i < values.length
            ? { done: false, value: { data: { n: values[i++] } } }
            : { done: true, value: undefined },
        return: async () => {
          seen.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, seen };
}

/** A filter written as an async generator, as inStaffScope is: its body runs only when started. */
async function* filtered<T>(from: AsyncIterable<T>) {
  for await (const x of from) yield x;
}

describe('withSubscribedAck', () => {
  it('starts the source before SUBSCRIBED is handed out, through a generator filter too', async () => {
    for (const wrap of [(s: AsyncIterable<ExecutionResult>) => s, filtered]) {
      const { iterable, seen } = source([1, 2]);
      const stream = (await withSubscribedAck(wrap(iterable))) as AsyncIterable<unknown>;
      const it = stream[Symbol.asyncIterator]();
      expect(seen.started).toBe(true);
      expect(await it.next()).toEqual({ done: false, value: SUBSCRIBED });
      expect(await it.next()).toEqual({ done: false, value: { data: { n: 1 } } });
      expect(await it.next()).toEqual({ done: false, value: { data: { n: 2 } } });
      expect((await it.next()).done).toBe(true);
    }
  });

  it('ends the source when the client leaves', async () => {
    const { iterable, seen } = source([1]);
    const stream = (await withSubscribedAck(iterable)) as AsyncIterable<unknown>;
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect(seen.returned).toBe(true);
  });

  it('passes an error result (no stream) unchanged', async () => {
    const refused: ExecutionResult = { errors: [new GraphQLError('Forbidden')] };
    expect(await withSubscribedAck(Promise.resolve(refused))).toBe(refused);
  });

  it('is asked for by subscribedAck: true only', () => {
    expect(wantsSubscribedAck({ subscribedAck: true })).toBe(true);
    expect(wantsSubscribedAck({ subscribedAck: 'yes' })).toBe(false);
    expect(wantsSubscribedAck(undefined)).toBe(false);
    expect(wantsSubscribedAck(null)).toBe(false);
  });
});
