// Batch activate/deactivate: one item at a time, each result reported as it arrives.

export interface BatchResult {
  id: number;
  label: string;
  ok: boolean;
  message: string;
}

export async function runBatch<T extends { id: number }>(
  items: readonly T[],
  action: (item: T) => Promise<unknown>,
  describe: (item: T) => string,
  successText: string,
  onResult: (result: BatchResult) => void,
): Promise<BatchResult[]> {
  const results: BatchResult[] = [];
  for (const item of items) {
    let result: BatchResult;
    try {
      await action(item);
      result = { id: item.id, label: describe(item), ok: true, message: successText };
    } catch (err) {
      result = {
        id: item.id,
        label: describe(item),
        ok: false,
        message: err instanceof Error ? err.message : 'An error occurred',
      };
    }
    results.push(result);
    onResult(result);
  }
  return results;
}
