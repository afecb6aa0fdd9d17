// The manager's avatar (initials) and status badge (ACTIVE green, INACTIVE gray, SUSPENDED red).
import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/utils';
import type { Manager } from '../api/managers';

type ManagerStatus = Manager['status'];

import { STATUS_STYLE } from '../utils/manager-rules';

export function ManagerAvatar({ initials, large = false }: { initials: string; large?: boolean }) {
  return (
    <span
      aria-hidden="true"
      className={cn(
        'inline-flex shrink-0 items-center justify-center rounded-full bg-primary/10 font-semibold text-primary',
        large ? 'size-14 text-lg' : 'size-9 text-sm',
      )}
    >
      {initials}
    </span>
  );
}

export function ManagerStatusBadge({ status }: { status: ManagerStatus }) {
  return <Badge className={STATUS_STYLE[status]}>{status}</Badge>;
}
