// The e-mail link's result pages: /direct-action-result stands alone (public, no
// sign-in, no shell); /approvals/direct-action-result is the same result inside the layout (the
// shell draws its breadcrumbs) with 'View Approval Details' and 'View All Approvals'.
import { PageHeader } from '../../../components/layout/page-header';
import { DirectActionResult } from './direct-action-result';

export function DirectActionResultPage() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-muted/50 px-4 py-12">
      <DirectActionResult />
    </main>
  );
}

export function InLayoutDirectActionResultPage() {
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader title="Action Result" />
      <div className="flex justify-center">
        <DirectActionResult inLayout />
      </div>
    </div>
  );
}
