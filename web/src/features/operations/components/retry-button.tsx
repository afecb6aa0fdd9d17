// A Retry button that runs its action once at a time and reports the outcome in a toast.
import { RotateCcw } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { errorMessageOf } from '../../../lib/errors';

export function RetryButton({
  label,
  action,
  onDone,
  disabled = false,
}: {
  /** Accessible name: says what is retried. */
  label: string;
  action: () => Promise<string>;
  onDone: () => void;
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const message = await action();
      toast({ title: 'Retry started', description: message, variant: 'success' });
    } catch (err) {
      toast({ title: 'Retry failed', description: errorMessageOf(err), variant: 'destructive' });
    } finally {
      setBusy(false);
      onDone();
    }
  };
  return (
    <Button variant="outline" size="sm" aria-label={label} disabled={busy || disabled} onClick={run}>
      <RotateCcw aria-hidden="true" />
      Retry
    </Button>
  );
}
