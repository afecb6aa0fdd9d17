// The rows ticked in a list with checkboxes. The page decides when the selection ends (another
// page, another filter, a finished batch): `clear`. Each change makes a new set, so React sees it.
import { useCallback, useState } from 'react';

export function useRowSelection<Id extends string | number>() {
  const [selected, setSelected] = useState<ReadonlySet<Id>>(() => new Set());

  const toggle = useCallback((id: Id, on: boolean) => {
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  /** Ticks or unticks these rows (the header's "select all on this page"), keeping the others. */
  const setMany = useCallback((ids: readonly Id[], on: boolean) => {
    setSelected((s) => {
      const next = new Set(s);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);

  /** Keeps only the rows that still qualify (the same set when none dropped out: no re-render). */
  const retain = useCallback((keep: (id: Id) => boolean) => {
    setSelected((s) => {
      const next = new Set([...s].filter(keep));
      return next.size === s.size ? s : next;
    });
  }, []);

  const clear = useCallback(() => setSelected(new Set()), []);

  /** Whether every one of these rows is ticked (false for none). */
  const allOf = (ids: readonly Id[]) => ids.length > 0 && ids.every((id) => selected.has(id));

  return { selected, toggle, setMany, retain, clear, allOf };
}
