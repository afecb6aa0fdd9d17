import { ShieldAlert } from 'lucide-react';

/** Shown instead of a redirect loop when no page of the route table is open to the role (a GUEST). */
export function AccessDenied() {
  return (
    <div className="mx-auto flex max-w-md flex-col items-center gap-3 py-16 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-muted">
        <ShieldAlert className="size-6 text-muted-foreground" aria-hidden="true" />
      </div>
      <h1 className="text-xl font-semibold tracking-tight">Access restricted</h1>
      <p className="text-sm text-muted-foreground">
        Your account does not have access to this page. Contact your system administrator if you need access.
      </p>
    </div>
  );
}
