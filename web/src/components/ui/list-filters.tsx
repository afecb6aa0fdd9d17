// A list's filters and its page/sort state, shared by the list pages (with data-list.tsx).
//
// Usage:
//   const list = useListState({ search: '', status: '' as Status | '' }, { key: 'createdAt', direction: 'desc' });
//   const query = useGqlQuery(Approvals, { page: list.page, search: list.filters.search || null, … });
//   <FilterBar>
//     <SearchField id="approval-search" placeholder="ID, company…" value={list.filters.search}
//       onSearch={(search) => list.setFilter({ search })} />
//     <FilterSelect … value={list.filters.status} onChange={(status) => list.setFilter({ status })} />
//   </FilterBar>
//   <DataList … sort={list.sort} onSort={list.toggleSort} paging={{ …, onPageChange: list.setPage }} />
// A new filter or sort goes back to page 1; the search waits for 300 ms of quiet before it applies.
import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { cn } from '../../lib/utils';
import { Card, CardContent } from './card';
import type { ListSort } from './data-list';
import { Input } from './input';
import { Label } from './label';

export function FilterBar({
  children,
  className,
  id,
}: {
  children: ReactNode;
  className?: string;
  id?: string;
}) {
  return (
    <Card className="py-4" id={id}>
      <CardContent className={cn('grid gap-4 sm:grid-cols-2 lg:grid-cols-4', className)}>
        {children}
      </CardContent>
    </Card>
  );
}

/** A search box that applies its text after `delayMs` of quiet (and at once when cleared). */
export function SearchField({
  id,
  label = 'Search',
  placeholder,
  value,
  onSearch,
  delayMs = 300,
  maxLength = 255,
}: {
  id: string;
  label?: string;
  placeholder?: string;
  /** The applied search (the filter's value). */
  value: string;
  onSearch: (text: string) => void;
  delayMs?: number;
  maxLength?: number;
}) {
  const [text, setText] = useState(value);
  // A reset from outside (Clear filters) shows in the box.
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const t = setTimeout(() => onSearch(text), text === '' ? 0 : delayMs);
    return () => clearTimeout(t);
  }, [text, value, onSearch, delayMs]);
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        type="search"
        placeholder={placeholder}
        value={text}
        maxLength={maxLength}
        onChange={(e) => setText(e.target.value)}
      />
    </div>
  );
}

/** Page, filters and sort of a server-paged list; any change of filter or sort returns to page 1. */
export function useListState<F extends Record<string, string>>(
  initialFilters: F,
  initialSort: ListSort | null = null,
) {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<F>(initialFilters);
  const [sort, setSort] = useState<ListSort | null>(initialSort);
  const setFilter = useCallback((patch: Partial<F>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the initial filters are fixed
  const clearFilters = useCallback(() => {
    setFilters(initialFilters);
    setPage(1);
  }, []);
  /** A column's first click sorts ascending, the next reverses it. */
  const toggleSort = useCallback((key: string) => {
    setSort((s) =>
      s?.key === key ? { key, direction: s.direction === 'asc' ? 'desc' : 'asc' } : { key, direction: 'asc' },
    );
    setPage(1);
  }, []);
  const active = Object.keys(initialFilters).some((k) => filters[k] !== initialFilters[k]);
  return { page, setPage, filters, setFilter, clearFilters, active, sort, setSort, toggleSort };
}

/** Steps back when the page shown is past the last one (e.g. after deletions). */
export function useClampPage(page: number, totalPages: number | undefined, setPage: (page: number) => void) {
  useEffect(() => {
    if (totalPages !== undefined && page > 1 && totalPages < page) setPage(Math.max(1, totalPages));
  }, [page, totalPages, setPage]);
}
