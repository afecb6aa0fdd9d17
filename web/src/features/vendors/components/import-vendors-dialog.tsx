// CSV import: pick a .csv under 5 MB, upload with a percentage, then the
// outcome message and the first 10 row errors with a count of the rest. Rows whose numbers are
// masked (an export masks them) say so, with how to get the full numbers.
// Changes of an account held for a second look are counted apart: they are saved, not live.
import { Upload } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Progress } from '../../../components/ui/progress';
import { toast } from '../../../components/ui/use-toast';
import { importVendors, type VendorImportResult } from '../api/vendors';
import {
  CSV_REQUIRED_COLUMNS,
  checkImportFile,
  heldNote,
  IMPORT_ERRORS_SHOWN,
  importOutcome,
  maskedRows,
  maskedRowsNote,
  plural,
  shownImportErrors,
} from '../utils/vendor-rules';

const TONE = {
  success: 'border-green-600/40 bg-green-50 text-green-900 dark:bg-green-950 dark:text-green-100',
  partial: 'border-amber-500/40 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100',
  failed: 'border-destructive/40 bg-destructive/10 text-destructive',
};

export function ImportVendorsDialog({
  open,
  onOpenChange,
  onImported,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onImported: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<VendorImportResult | null>(null);
  /** Rows of the file whose numbers are masked (read before the upload). */
  const [masked, setMasked] = useState<ReadonlySet<number>>(new Set());
  const uploading = progress !== null && result === null;

  useEffect(() => {
    if (!open) return;
    setFile(null);
    setFileError(null);
    setProgress(null);
    setResult(null);
    setMasked(new Set());
  }, [open]);

  async function upload() {
    if (!file) return;
    setProgress(0);
    try {
      // The server refuses masked rows; the file says which they are, so the message can say why.
      setMasked(maskedRows(await readText(file)));
      const r = await importVendors(file, setProgress);
      setProgress(100);
      setResult(r);
      onImported();
    } catch (err) {
      setProgress(null);
      toast.error(err instanceof Error ? err.message : 'Failed to import CSV file', 'Import failed');
    }
  }

  const outcome = result ? importOutcome(result) : null;
  const rowErrors = result ? shownImportErrors(result.errors, masked) : [];
  const maskedFailed = result
    ? new Set(result.errors.map((e) => e.row).filter((row) => masked.has(row))).size
    : 0;
  return (
    <Dialog open={open} onOpenChange={(next) => !uploading && onOpenChange(next)}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Import Vendor Banking</DialogTitle>
          <DialogDescription>
            A .csv file of at most 5 MB with the columns {CSV_REQUIRED_COLUMNS.join(', ')}. Rows with the bank
            columns empty are left as they are.
          </DialogDescription>
        </DialogHeader>
        {result === null ? (
          <div className="grid gap-2">
            <Label htmlFor="vendor-import-file">CSV file</Label>
            <Input
              id="vendor-import-file"
              type="file"
              accept=".csv,text/csv"
              disabled={uploading}
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? 'vendor-import-file-error' : undefined}
              onChange={(e) => {
                const f = e.target.files?.[0] ?? null;
                const problem = f ? checkImportFile(f) : null;
                setFileError(problem);
                setFile(problem ? null : f);
              }}
            />
            {fileError ? (
              <p id="vendor-import-file-error" className="text-sm text-destructive">
                {fileError}
              </p>
            ) : null}
            {progress !== null ? (
              <div className="grid gap-1">
                <Progress value={progress} label="Upload progress" />
                <p className="text-sm text-muted-foreground" aria-live="polite">
                  {progress < 100 ? `Uploading… ${progress}%` : 'Uploaded 100%, checking rows…'}
                </p>
              </div>
            ) : null}
          </div>
        ) : (
          <div className="grid gap-3">
            <div
              role="status"
              className={`rounded-md border px-3 py-2 text-sm font-medium ${TONE[outcome!.tone]}`}
            >
              {outcome!.text}
            </div>
            <p className="text-sm text-muted-foreground">
              {plural(result.processed, 'row')} read
              {result.unchanged ? `, ${result.unchanged} left unchanged` : ''}.
            </p>
            {result.held ? (
              <p
                role="note"
                data-testid="import-held-note"
                className="rounded-md border border-amber-500/40 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
              >
                {heldNote(result.held)}
              </p>
            ) : null}
            {maskedFailed > 0 ? (
              <p
                role="note"
                data-testid="import-masked-note"
                className="rounded-md border border-amber-500/40 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
              >
                {maskedRowsNote(maskedFailed)}
              </p>
            ) : null}
            {rowErrors.length > 0 ? (
              <div className="grid gap-1">
                <p className="text-sm font-medium">Errors</p>
                <ul className="grid gap-1 text-sm" data-testid="import-errors">
                  {rowErrors.slice(0, IMPORT_ERRORS_SHOWN).map((e) => (
                    <li key={`${e.row}-${e.error}`} className="[overflow-wrap:anywhere]">
                      Row {e.row}: {e.error}
                    </li>
                  ))}
                </ul>
                {rowErrors.length > IMPORT_ERRORS_SHOWN ? (
                  <p className="text-sm text-muted-foreground">
                    and {plural(rowErrors.length - IMPORT_ERRORS_SHOWN, 'more error', 'more errors')}
                  </p>
                ) : null}
              </div>
            ) : null}
          </div>
        )}
        <DialogFooter>
          {result ? (
            <Button onClick={() => onOpenChange(false)}>Done</Button>
          ) : (
            <>
              <Button variant="outline" onClick={() => onOpenChange(false)} disabled={uploading}>
                Cancel
              </Button>
              <Button onClick={upload} disabled={!file || uploading}>
                <Upload aria-hidden="true" />
                {uploading ? 'Uploading…' : 'Upload'}
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** The file's text; a file the browser cannot read is checked by the server alone. */
function readText(file: Blob): Promise<string> {
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => resolve('');
    reader.readAsText(file);
  });
}
