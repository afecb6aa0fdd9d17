// What a list shows instead of its rows: the load failed (with a way to try again), or there is
// nothing to show. Each screen keeps its own words (the specs name them); the look is shared.
import { RefreshCw } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from './button';

/** The list could not be read. `title` carries the spec's wording, usually with the error's message. */
export function LoadError({
  title,
  detail,
  retryLabel = 'Retry',
  onRetry,
}: {
  title: ReactNode;
  detail?: ReactNode;
  retryLabel?: string;
  onRetry: () => void;
}) {
  return (
    <div role="alert" className="flex flex-col items-center gap-3 px-6 py-12 text-center">
      <p className="font-medium text-destructive">{title}</p>
      {detail ? <p className="text-sm text-muted-foreground">{detail}</p> : null}
      <Button variant="outline" size="sm" onClick={onRetry}>
        <RefreshCw aria-hidden="true" />
        {retryLabel}
      </Button>
    </div>
  );
}

/** Nothing to list: what, why or what to do next, and an action when there is one. */
export function EmptyState({
  title,
  description,
  action,
}: {
  title: ReactNode;
  description?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-12 text-center">
      <p className="font-medium">{title}</p>
      {description ? <p className="text-sm text-muted-foreground">{description}</p> : null}
      {action}
    </div>
  );
}
