// Bank files (ADMIN, MODERATOR): the files the bank sent back (returns, notifications of change) with
// what each held and what was parked for a person, and below what needs attention. An ADMIN reads a
// new file here (an upload: reading a file changes money's state, so the server allows ADMIN only).
import { FileUp } from 'lucide-react';
import { useState } from 'react';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useSession } from '../../../lib/auth';
import { useGqlQuery } from '../../../lib/use-graphql';
import { AchInboundFilesQuery, NeedingAttentionQuery } from '../api/bank-files';
import { InboundFilesCard } from './inbound-files-card';
import { NeedsAttentionCard } from './needs-attention-card';
import { ReadBankFileDialog } from './read-bank-file-dialog';

export const BANK_FILES_DESCRIPTION =
  'Return and notification-of-change files from the bank: what each held, what was applied, and what waits on a person.';

export function BankFilesPage() {
  useDocumentTitle('Bank files');
  const isAdmin = useSession().user?.role === 'ADMIN';
  const [reading, setReading] = useState(false);
  const files = useGqlQuery(AchInboundFilesQuery, {}, { fallback: 'Failed to load the bank files' });
  const attention = useGqlQuery(
    NeedingAttentionQuery,
    {},
    { fallback: 'Failed to load what needs attention' },
  );
  const refresh = () => {
    files.reload();
    attention.reload();
  };
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Bank files"
        description={BANK_FILES_DESCRIPTION}
        actions={
          isAdmin ? (
            <Button onClick={() => setReading(true)}>
              <FileUp aria-hidden="true" />
              Read a bank file
            </Button>
          ) : null
        }
      />
      <InboundFilesCard
        files={files.data?.achInboundFiles}
        loading={files.loading}
        error={files.error?.message ?? null}
        onRetry={files.reload}
      />
      <NeedsAttentionCard
        attention={attention.data?.paymentEntriesNeedingAttention}
        loading={attention.loading}
        error={attention.error?.message ?? null}
        onRetry={attention.reload}
      />
      {isAdmin ? <ReadBankFileDialog open={reading} onOpenChange={setReading} onRead={refresh} /> : null}
    </div>
  );
}
