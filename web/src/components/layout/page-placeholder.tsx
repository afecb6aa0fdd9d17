import { Construction } from 'lucide-react';
import { PageHeader } from './page-header';

/** A screen whose content arrives with a later issue: its heading and a short note. */
export function PagePlaceholder({ title, description }: { title: string; description?: string }) {
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader title={title} description={description} />
      <div className="flex flex-col items-center justify-center gap-2 rounded-xl border border-dashed bg-background px-6 py-16 text-center">
        <Construction className="size-6 text-muted-foreground" aria-hidden="true" />
        <p className="text-sm text-muted-foreground">This screen is being built.</p>
      </div>
    </div>
  );
}
