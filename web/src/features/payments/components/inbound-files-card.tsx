// The files the bank sent back, newest first: where each came from, when, what it held and what was
// applied; each opens to its entries parked for a person, and a refused file shows why.
import { ChevronDown, ChevronRight, FileText } from 'lucide-react';
import { Fragment, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { Skeleton } from '../../../components/ui/skeleton';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import type { InboundFile } from '../api/bank-files';
import { parkedLine, SOURCE_LABEL, STATUS_LABEL } from '../utils/bank-file-words';

const formatTime = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
};

function StatusBadge({ status }: { status: InboundFile['status'] }) {
  const variant = status === 'REFUSED' ? 'destructive' : status === 'APPLIED' ? 'secondary' : 'outline';
  return <Badge variant={variant}>{STATUS_LABEL[status] ?? status}</Badge>;
}

export function InboundFilesCard({
  files,
  loading,
  error,
  onRetry,
}: {
  files: readonly InboundFile[] | undefined;
  loading: boolean;
  error: string | null;
  onRetry: () => void;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Card role="group" aria-labelledby="bank-files-title" data-testid="bank-files-card">
      <CardHeader>
        <CardTitle as="h2" id="bank-files-title" className="flex items-center gap-2">
          <FileText className="size-4 text-muted-foreground" aria-hidden="true" />
          Files read
        </CardTitle>
      </CardHeader>
      <CardContent>
        {error ? (
          <LoadError title={`Error loading bank files: ${error}`} onRetry={onRetry} />
        ) : loading && !files ? (
          <div className="grid gap-2" aria-hidden="true">
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : !files || files.length === 0 ? (
          <EmptyState
            title="No bank files read yet"
            description="Return and notification-of-change files appear here once read."
          />
        ) : (
          <Table aria-label="Bank files">
            <TableHeader>
              <TableRow>
                <TableHead scope="col">File</TableHead>
                <TableHead scope="col">Source</TableHead>
                <TableHead scope="col">Received</TableHead>
                <TableHead scope="col">Status</TableHead>
                <TableHead scope="col" className="text-right">
                  Returns
                </TableHead>
                <TableHead scope="col" className="text-right">
                  Corrections
                </TableHead>
                <TableHead scope="col" className="text-right">
                  Applied / already
                </TableHead>
                <TableHead scope="col" className="text-right">
                  Parked
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {files.map((f) => {
                const expandable = f.parked.length > 0 || f.reasons.length > 0;
                const expanded = open.has(f.fileId);
                return (
                  <Fragment key={f.fileId}>
                    <TableRow data-testid={`bank-file-${f.fileName}`}>
                      <TableCell className="font-medium [overflow-wrap:anywhere]">
                        {expandable ? (
                          <Button
                            variant="ghost"
                            size="sm"
                            className="-ml-2 h-7 px-2"
                            aria-expanded={expanded}
                            aria-controls={`bank-file-details-${f.fileId}`}
                            onClick={() => toggle(f.fileId)}
                          >
                            {expanded ? (
                              <ChevronDown aria-hidden="true" />
                            ) : (
                              <ChevronRight aria-hidden="true" />
                            )}
                            {f.fileName}
                          </Button>
                        ) : (
                          f.fileName
                        )}
                      </TableCell>
                      <TableCell>{SOURCE_LABEL[f.source] ?? f.source}</TableCell>
                      <TableCell>
                        <time dateTime={f.receivedAt}>{formatTime(f.receivedAt)}</time>
                      </TableCell>
                      <TableCell>
                        <StatusBadge status={f.status} />
                      </TableCell>
                      <TableCell className="text-right tabular-nums">{f.returns}</TableCell>
                      <TableCell className="text-right tabular-nums">{f.corrections}</TableCell>
                      <TableCell className="text-right tabular-nums">
                        {f.applied === null ? '—' : `${f.applied} / ${f.alreadyApplied ?? 0}`}
                      </TableCell>
                      <TableCell className="text-right tabular-nums">
                        {f.parked.length > 0 ? (
                          <Badge variant="outline" className="border-amber-500 text-amber-800">
                            {f.parked.length}
                          </Badge>
                        ) : (
                          0
                        )}
                      </TableCell>
                    </TableRow>
                    {expandable && expanded ? (
                      <TableRow>
                        <TableCell colSpan={8} id={`bank-file-details-${f.fileId}`}>
                          <FileDetails file={f} />
                        </TableCell>
                      </TableRow>
                    ) : null}
                  </Fragment>
                );
              })}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}

function FileDetails({ file }: { file: InboundFile }) {
  return (
    <div className="grid gap-2 text-sm whitespace-normal">
      {file.reasons.length > 0 ? (
        <div className="grid gap-1" data-testid={`bank-file-reasons-${file.fileName}`}>
          <p className="font-medium text-destructive">Refused: nothing of this file was applied.</p>
          <ul className="grid gap-1">
            {file.reasons.map((r) => (
              <li key={r} className="[overflow-wrap:anywhere]">
                {r}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {file.parked.length > 0 ? (
        <div className="grid gap-1">
          <p className="font-medium">Parked for a person: these entries matched no Billflow payment.</p>
          <ul className="grid gap-1 font-mono text-xs" data-testid={`bank-file-parked-${file.fileName}`}>
            {file.parked.map((p) => (
              <li key={`${p.line}-${p.originalTrace}`} className="[overflow-wrap:anywhere]">
                {parkedLine(p)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
