// The list footer: page size, First, Previous, up to 5 page buttons, Next, Last and
// 'Page p of n • Total: t approvals'. /bills pages its bills with the same footer ('t bills').
import { Button } from '../../../components/ui/button';
import { Label } from '../../../components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { PAGE_SIZES, type PageSize, pageButtons, pageSummary } from '../utils/approval-rules';

export function ApprovalsPagination({
  page,
  totalPages,
  total,
  limit,
  onPage,
  onLimit,
  noun = 'approvals',
}: {
  page: number;
  totalPages: number;
  total: number;
  limit: PageSize;
  onPage: (page: number) => void;
  onLimit: (limit: PageSize) => void;
  noun?: string;
}) {
  const last = Math.max(1, totalPages);
  return (
    <nav
      aria-label="Pagination"
      className="flex flex-col items-center justify-between gap-3 border-t px-4 py-3 lg:flex-row"
    >
      <div className="flex items-center gap-2">
        <Label htmlFor="approvals-page-size" className="text-sm font-normal">
          Rows per page
        </Label>
        <Select value={String(limit)} onValueChange={(v) => onLimit(Number(v) as PageSize)}>
          <SelectTrigger id="approvals-page-size" aria-label="Rows per page" className="w-20">
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            {PAGE_SIZES.map((n) => (
              <SelectItem key={n} value={String(n)}>
                {n}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </div>
      <div className="flex flex-wrap items-center gap-1">
        <Button variant="outline" size="sm" onClick={() => onPage(1)} disabled={page <= 1}>
          First
        </Button>
        <Button variant="outline" size="sm" onClick={() => onPage(page - 1)} disabled={page <= 1}>
          Previous
        </Button>
        {pageButtons(page, last).map((n) => (
          <Button
            key={n}
            variant={n === page ? 'default' : 'outline'}
            size="sm"
            aria-label={`Page ${n}`}
            aria-current={n === page ? 'page' : undefined}
            onClick={() => onPage(n)}
          >
            {n}
          </Button>
        ))}
        <Button variant="outline" size="sm" onClick={() => onPage(page + 1)} disabled={page >= last}>
          Next
        </Button>
        <Button variant="outline" size="sm" onClick={() => onPage(last)} disabled={page >= last}>
          Last
        </Button>
      </div>
      <p className="text-sm text-muted-foreground" aria-live="polite" data-testid="page-summary">
        {pageSummary(page, last, total, noun)}
      </p>
    </nav>
  );
}
