import { AlertCircle } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';

/** 'Error loading user: … / User not found'. */
export function UserLoadError({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div
      role="alert"
      className="flex flex-col items-center gap-3 rounded-xl border border-destructive/40 bg-background px-6 py-12 text-center"
    >
      <AlertCircle className="size-6 text-destructive" aria-hidden="true" />
      <p className="font-medium text-destructive" data-testid="user-load-error">
        Error loading user: {message}
      </p>
      <div className="flex gap-2">
        {onRetry ? (
          <Button variant="outline" size="sm" onClick={onRetry}>
            Retry
          </Button>
        ) : null}
        <Button variant="outline" size="sm" asChild>
          <Link to="/users">Back to Users</Link>
        </Button>
      </div>
    </div>
  );
}
