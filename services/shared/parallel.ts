// Work over many items with at most `width` of them in flight (QuickBooks calls, imports).
/** Runs `work` over items, `width` at a time, in order of the items' results. */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, i: number) => Promise<R>,
) {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= items.length) return;
        out[i] = await work(items[i], i);
      }
    }),
  );
  return out;
}
