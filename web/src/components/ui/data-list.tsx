// The list scaffold every list page shares: its states (loading, load error with Retry, empty), the
// table with optional row checkboxes, sortable headers and a row menu, and the paging footer. A list
// page is then mostly its columns; filters go above it in a FilterBar (list-filters.tsx).
//
// Usage:
//   const columns: Column<ManagerRow>[] = [
//     { id: 'name', header: 'Manager', cell: (m) => <Link …>{managerName(m)}</Link> },
//     { id: 'created', header: 'Created', sortKey: 'createdAt', cell: (m) => formatDay(m.createdAt) },
//   ];
//   <DataList
//     rows={list.data?.managers.data} error={list.error} onRetry={list.reload}
//     errorTitle={(e) => `Error loading managers: ${e.message}`} loadingText="Loading managers..."
//     empty={{ title: 'No managers found' }} columns={columns} rowKey={(m) => m.id}
//     rowActions={(m) => [{ label: 'View Details', onSelect: () => navigate(…) }]}
//     actionsLabel={(m) => `Actions for ${managerName(m)}`}
//     paging={{ info: list.data?.managers, noun: 'managers', onPageChange: setPage }}
//   />
// While a re-read is on its way the rows on screen stay (rows !== undefined); the error state shows
// only when there is nothing to show.
import { MoreHorizontal } from 'lucide-react';
import { Fragment, type ReactNode } from 'react';
import { Button } from './button';
import { Checkbox } from './checkbox';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from './dropdown-menu';
import { EmptyState, LoadError } from './list-states';
import { PaginationFooter, type PaginationInfo } from './pagination';
import { LoadingState } from './spinner';
import {
  type SortDirection,
  SortHeader,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from './table';

export interface Column<Row> {
  id: string;
  header: string;
  cell: (row: Row) => ReactNode;
  /** Sortable by this key (see `sort`). */
  sortKey?: string;
  /** Classes of the header and the cells (width, alignment, hiding on small screens). */
  className?: string;
}

export interface RowAction {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** Why the item is disabled, written under its label (readable, not only a tooltip). */
  reason?: string | null;
  destructive?: boolean;
  /** A separator above this item. */
  separated?: boolean;
}

export interface RowSelection<Id> {
  selected: ReadonlySet<Id>;
  toggle: (id: Id, on: boolean) => void;
  setMany: (ids: readonly Id[], on: boolean) => void;
  allOf: (ids: readonly Id[]) => boolean;
  /** The checkbox's name, e.g. `Select ${email}`. */
  label: (rowId: Id) => string;
  /** The header checkbox's name, e.g. 'Select all users on this page'. */
  allLabel: string;
  /** Rows that may not be ticked (e.g. decided approvals) show a disabled box; all may by default. */
  selectable?: (rowId: Id) => boolean;
}

export interface ListSort {
  key: string;
  direction: SortDirection;
}

export function DataList<Row, Id extends string | number>({
  rows,
  error,
  onRetry,
  errorTitle,
  loadingText,
  empty,
  columns,
  rowKey,
  rowTestId,
  selection,
  rowActions,
  actionsLabel,
  sort,
  onSort,
  paging,
  caption,
}: {
  /** undefined until the first answer. */
  rows: readonly Row[] | undefined;
  error?: Error | null;
  onRetry?: () => void;
  errorTitle: (error: Error) => ReactNode;
  loadingText: string;
  empty: { title: ReactNode; description?: ReactNode; action?: ReactNode };
  columns: ReadonlyArray<Column<Row>>;
  rowKey: (row: Row) => Id;
  rowTestId?: (row: Row) => string;
  selection?: RowSelection<Id>;
  rowActions?: (row: Row) => ReadonlyArray<RowAction | false | null | undefined>;
  /** The row menu button's name, e.g. `Actions for ${email}`. */
  actionsLabel?: (row: Row) => string;
  sort?: ListSort | null;
  onSort?: (key: string) => void;
  paging?: {
    /** The page the rows came from (not the one asked for, while it loads). */
    info: PaginationInfo | undefined;
    noun: string;
    onPageChange: (page: number) => void;
  };
  caption?: ReactNode;
}) {
  if (!rows) {
    if (error) return <LoadError title={errorTitle(error)} onRetry={onRetry ?? (() => {})} />;
    return <LoadingState text={loadingText} />;
  }
  if (rows.length === 0) return <EmptyState {...empty} />;
  const ids = rows.map(rowKey);
  const selectableIds = selection?.selectable ? ids.filter(selection.selectable) : ids;
  return (
    <>
      <Table>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <TableHeader>
          <TableRow>
            {selection ? (
              <TableHead className="w-10 pl-4">
                <Checkbox
                  aria-label={selection.allLabel}
                  checked={selection.allOf(selectableIds)}
                  disabled={selectableIds.length === 0}
                  onChange={(e) => selection.setMany(selectableIds, e.target.checked)}
                />
              </TableHead>
            ) : null}
            {columns.map((c, i) =>
              c.sortKey && onSort ? (
                <SortHeader
                  key={c.id}
                  className={c.className}
                  direction={sort?.key === c.sortKey ? sort.direction : null}
                  onSort={() => onSort(c.sortKey as string)}
                >
                  {c.header}
                </SortHeader>
              ) : (
                <TableHead
                  key={c.id}
                  className={i === 0 && !selection ? `pl-4 ${c.className ?? ''}` : c.className}
                >
                  {c.header}
                </TableHead>
              ),
            )}
            {rowActions ? (
              <TableHead className="w-12 pr-4 text-right">
                <span className="sr-only">Actions</span>
              </TableHead>
            ) : null}
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.map((row) => {
            const id = rowKey(row);
            const checked = selection?.selected.has(id) ?? false;
            return (
              <TableRow key={id} data-testid={rowTestId?.(row)} data-state={checked ? 'selected' : undefined}>
                {selection ? (
                  <TableCell className="pl-4">
                    <Checkbox
                      aria-label={selection.label(id)}
                      checked={checked}
                      disabled={selection.selectable ? !selection.selectable(id) : undefined}
                      onChange={(e) => selection.toggle(id, e.target.checked)}
                    />
                  </TableCell>
                ) : null}
                {columns.map((c, i) => (
                  <TableCell
                    key={c.id}
                    className={i === 0 && !selection ? `pl-4 ${c.className ?? ''}` : c.className}
                  >
                    {c.cell(row)}
                  </TableCell>
                ))}
                {rowActions ? (
                  <TableCell className="pr-4 text-right">
                    <RowMenu label={actionsLabel?.(row) ?? 'Actions'} actions={rowActions(row)} />
                  </TableCell>
                ) : null}
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      {paging?.info ? (
        <PaginationFooter
          className="border-t"
          noun={paging.noun}
          pagination={paging.info}
          onPageChange={paging.onPageChange}
        />
      ) : null}
    </>
  );
}

/** A row's "…" menu: a labelled list of actions, destructive ones last after a separator. */
export function RowMenu({
  label,
  actions,
}: {
  label: string;
  actions: ReadonlyArray<RowAction | false | null | undefined>;
}) {
  const items = actions.filter((a): a is RowAction => Boolean(a));
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={label}>
          <MoreHorizontal aria-hidden="true" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        <DropdownMenuLabel>Actions</DropdownMenuLabel>
        {items.map((a) => (
          <Fragment key={a.label}>
            {a.separated ? <DropdownMenuSeparator /> : null}
            <DropdownMenuItem
              variant={a.destructive ? 'destructive' : undefined}
              disabled={a.disabled}
              onSelect={a.onSelect}
            >
              {a.reason ? (
                <span className="grid max-w-64 gap-0.5">
                  <span>{a.label}</span>
                  <span className="text-xs whitespace-normal text-muted-foreground">{a.reason}</span>
                </span>
              ) : (
                a.label
              )}
            </DropdownMenuItem>
          </Fragment>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
