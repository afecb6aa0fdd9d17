import { ChevronLeft, ChevronRight } from 'lucide-react';
import { cn } from '../../lib/utils';
import { Button } from './button';

export interface PaginationInfo {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** 'Showing X to Y of N {noun}' for a page of a paged list. */
export function showingText(
  { page, limit, total }: Pick<PaginationInfo, 'page' | 'limit' | 'total'>,
  noun: string,
): string {
  const from = total === 0 ? 0 : (page - 1) * limit + 1;
  const to = Math.min(page * limit, total);
  return `Showing ${from} to ${to} of ${total} ${noun}`;
}

/** The paged list footer: 'Showing X to Y of N …', Previous, Next, 'Page P of T'. */
export function PaginationFooter({
  pagination,
  noun,
  onPageChange,
  className,
}: {
  pagination: PaginationInfo;
  noun: string;
  onPageChange: (page: number) => void;
  className?: string;
}) {
  const { page } = pagination;
  const totalPages = Math.max(1, pagination.totalPages);
  return (
    <nav
      aria-label="Pagination"
      className={cn('flex flex-col items-center justify-between gap-3 px-2 py-3 sm:flex-row', className)}
    >
      <p className="text-sm text-muted-foreground">{showingText(pagination, noun)}</p>
      <div className="flex items-center gap-2">
        <Button variant="outline" size="sm" onClick={() => onPageChange(page - 1)} disabled={page <= 1}>
          <ChevronLeft aria-hidden="true" />
          Previous
        </Button>
        <span className="min-w-24 text-center text-sm font-medium" aria-live="polite">
          Page {page} of {totalPages}
        </span>
        <Button
          variant="outline"
          size="sm"
          onClick={() => onPageChange(page + 1)}
          disabled={page >= totalPages}
        >
          Next
          <ChevronRight aria-hidden="true" />
        </Button>
      </div>
    </nav>
  );
}
