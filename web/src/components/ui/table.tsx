import { ArrowDown, ArrowUp, ChevronsUpDown } from 'lucide-react';
import type { ComponentProps } from 'react';
import { cn } from '../../lib/utils';

export function Table({ className, ...props }: ComponentProps<'table'>) {
  return (
    <div data-slot="table-container" className="relative w-full overflow-x-auto">
      <table data-slot="table" className={cn('w-full caption-bottom text-sm', className)} {...props} />
    </div>
  );
}

export function TableHeader({ className, ...props }: ComponentProps<'thead'>) {
  return <thead className={cn('[&_tr]:border-b', className)} {...props} />;
}

export function TableBody({ className, ...props }: ComponentProps<'tbody'>) {
  return <tbody className={cn('[&_tr:last-child]:border-0', className)} {...props} />;
}

export function TableRow({ className, ...props }: ComponentProps<'tr'>) {
  return (
    <tr
      className={cn('border-b transition-colors hover:bg-muted/50 data-[state=selected]:bg-muted', className)}
      {...props}
    />
  );
}

export function TableHead({ className, ...props }: ComponentProps<'th'>) {
  return (
    <th
      className={cn(
        'h-10 px-2 text-left align-middle font-medium whitespace-nowrap text-foreground [&:has([role=checkbox])]:pr-0',
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({ className, ...props }: ComponentProps<'td'>) {
  return (
    <td
      className={cn('p-2 align-middle whitespace-nowrap [&:has([role=checkbox])]:pr-0', className)}
      {...props}
    />
  );
}

/**
 * For a wide table's last column (its row actions): pinned to the right edge while the table scrolls
 * sideways, opaque, and shaded as its row is on hover or when selected.
 */
export const pinnedEnd =
  'sticky right-0 z-10 bg-card shadow-[inset_1px_0_0_var(--color-border)] [tr:hover>&]:bg-[color-mix(in_oklab,var(--color-muted)_50%,var(--color-card))] [tr[data-state=selected]>&]:bg-muted';

export function TableCaption({ className, ...props }: ComponentProps<'caption'>) {
  return <caption className={cn('mt-4 text-sm text-muted-foreground', className)} {...props} />;
}

// Sorting: a column cycles ascending, descending, none.

export type SortDirection = 'asc' | 'desc';
export type SortState<K extends string = string> = { key: K; direction: SortDirection } | null;

export function nextSort<K extends string>(current: SortState<K>, key: K): SortState<K> {
  if (!current || current.key !== key) return { key, direction: 'asc' };
  if (current.direction === 'asc') return { key, direction: 'desc' };
  return null;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined || a === '') return 1;
  if (b === null || b === undefined || b === '') return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/** A sorted copy of rows (empty values last in either direction); the original order without a sort. */
export function sortRows<T, K extends string>(
  rows: readonly T[],
  sort: SortState<K>,
  getValue: (row: T, key: K) => unknown,
): T[] {
  if (!sort) return [...rows];
  const sign = sort.direction === 'asc' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index }))
    .sort((x, y) => {
      const a = getValue(x.row, sort.key);
      const b = getValue(y.row, sort.key);
      const emptyA = a === null || a === undefined || a === '';
      const emptyB = b === null || b === undefined || b === '';
      if (emptyA || emptyB) return emptyA === emptyB ? x.index - y.index : emptyA ? 1 : -1;
      return sign * compareValues(a, b) || x.index - y.index;
    })
    .map(({ row }) => row);
}

/**
 * A column header that sorts. Its label may take two lines (on one, the approvals table's twelve
 * columns outgrew a 1280-pixel screen), and the arrow stays with the label's last word: beside a
 * two-line label it widened the column, and alone on a line it read as another row.
 */
export function SortHeader({
  direction,
  onSort,
  children,
  className,
}: {
  direction: SortDirection | null;
  onSort: () => void;
  children: string;
  className?: string;
}) {
  const Icon = direction === 'asc' ? ArrowUp : direction === 'desc' ? ArrowDown : ChevronsUpDown;
  const cut = children.lastIndexOf(' ') + 1;
  return (
    <TableHead
      className={cn('whitespace-normal', className)}
      aria-sort={direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : 'none'}
    >
      <button
        type="button"
        onClick={onSort}
        className="-ml-1.5 inline-block min-h-8 rounded-md px-1.5 py-1 text-left leading-tight font-medium hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-none"
      >
        {children.slice(0, cut)}
        <span className="whitespace-nowrap">
          {children.slice(cut)}
          <Icon
            className={cn(
              'ml-1 inline size-3.5 align-[-2px]',
              direction ? 'text-foreground' : 'text-muted-foreground',
            )}
            aria-hidden="true"
          />
        </span>
      </button>
    </TableHead>
  );
}

/** A header that sorts rows on the client (nextSort: ascending, descending, none). */
export function SortableTableHead<K extends string>({
  sortKey,
  sort,
  onSortChange,
  children,
  className,
}: {
  sortKey: K;
  sort: SortState<K>;
  onSortChange: (next: SortState<K>) => void;
  children: string;
  className?: string;
}) {
  return (
    <SortHeader
      direction={sort?.key === sortKey ? sort.direction : null}
      onSort={() => onSortChange(nextSort(sort, sortKey))}
      className={className}
    >
      {children}
    </SortHeader>
  );
}
