// The bar above a list with selectable rows (batch activate/deactivate): what is selected,
// the two batch actions, and each item's result as it arrives, one item at a time. It ends with a
// toast that sums up, then clears the selection and reloads the list (`onFinished`).
import { useState } from 'react';
import { type BatchResult, runBatch } from '../../lib/run-batch';
import { Button } from './button';
import { toast } from './use-toast';

interface BatchState {
  running: boolean;
  action: string;
  results: BatchResult[];
}

export function BatchActivationBar<T extends { id: number }>({
  selected,
  noun,
  setActive,
  describe,
  onClear,
  onFinished,
}: {
  /** The selected rows, in list order. */
  selected: readonly T[];
  /** What the rows are, plural, for the summary ("3 of 4 users activated"). */
  noun: string;
  setActive: (item: T, active: boolean) => Promise<unknown>;
  /** An item's name in the results. */
  describe: (item: T) => string;
  onClear: () => void;
  onFinished: () => void;
}) {
  const [batch, setBatch] = useState<BatchState | null>(null);

  async function run(activate: boolean) {
    if (selected.length === 0) return;
    setBatch({ running: true, action: activate ? 'Activate' : 'Deactivate', results: [] });
    const results = await runBatch(
      selected,
      (item) => setActive(item, activate),
      describe,
      activate ? 'Activated' : 'Deactivated',
      (result) => setBatch((b) => (b ? { ...b, results: [...b.results, result] } : b)),
    );
    setBatch((b) => (b ? { ...b, running: false } : b));
    const failed = results.filter((r) => !r.ok).length;
    const summary = `${results.length - failed} of ${results.length} ${noun} ${activate ? 'activated' : 'deactivated'}`;
    if (failed > 0) toast.error(`${summary}; ${failed} failed`);
    else toast.success(summary);
    onFinished();
  }

  if (selected.length === 0 && !batch) return null;
  return (
    <div className="flex flex-wrap items-center gap-2 border-b px-4 py-3" data-testid="batch-bar">
      {selected.length > 0 ? (
        <>
          <span className="text-sm font-medium">{selected.length} selected</span>
          <Button size="sm" variant="outline" disabled={batch?.running} onClick={() => run(true)}>
            Activate Selected
          </Button>
          <Button size="sm" variant="outline" disabled={batch?.running} onClick={() => run(false)}>
            Deactivate Selected
          </Button>
          <Button size="sm" variant="ghost" disabled={batch?.running} onClick={onClear}>
            Clear Selection
          </Button>
        </>
      ) : null}
      {batch ? (
        <section aria-label="Batch results" className="basis-full text-sm" aria-live="polite">
          <div className="flex items-center justify-between">
            <p className="font-medium">
              {batch.action} {batch.running ? 'in progress' : 'finished'}:{' '}
              {batch.results.filter((r) => r.ok).length} succeeded,{' '}
              {batch.results.filter((r) => !r.ok).length} failed
            </p>
            {!batch.running ? (
              <Button size="sm" variant="ghost" onClick={() => setBatch(null)}>
                Dismiss
              </Button>
            ) : null}
          </div>
          <ul className="mt-1 grid gap-0.5" data-testid="batch-results">
            {batch.results.map((r) => (
              <li key={r.id} className={r.ok ? 'text-foreground' : 'text-destructive'}>
                {r.label}: {r.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
