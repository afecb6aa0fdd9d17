import { Loader2 } from 'lucide-react';
import { cn } from '../../lib/utils';

export function Spinner({ className, label }: { className?: string; label?: string }) {
  return (
    <Loader2
      className={cn('size-4 animate-spin text-muted-foreground', className)}
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    />
  );
}

/** A centred spinner with a visible text, announced politely (the guard's 'Loading...'). */
export function LoadingState({ text = 'Loading...', className }: { text?: string; className?: string }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className={cn('flex items-center justify-center gap-3 p-8 text-sm text-muted-foreground', className)}
    >
      <Spinner className="size-5" />
      <span>{text}</span>
    </div>
  );
}
