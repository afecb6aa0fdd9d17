import { ChevronLeft, ChevronRight } from 'lucide-react';
import { cn } from '../../lib/utils';
import { Button } from './button';

export interface PaginationInfo {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** One of a list's plural noun: the lists' nouns are regular ('companies' → 'company', 'users' → 'user'). */
function singular(noun: string): string {
  if (noun.endsWith('ies')) return `${noun.slice(0, -3)}y`;
  return noun.endsWith('s') ? noun.slice(0, -1) : noun;
}

/** 'Showing X to Y of N {noun}' for a page of a paged list ('of 1 company', 'of 2 companies'). */
export function showingText(
  { page, limit, total }: Pick<PaginationInfo, 'page' | 'limit' | 'total'>,
  noun: string,
): string {
  const from = total === 0 ? 0 : (page - 1) * limit + 1;
  const to = Math.min(page * limit, total);
  return `Showing ${from} to ${to} of ${total} ${total === 1 ? singular(noun) : noun}`;
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
