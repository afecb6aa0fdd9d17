// Reading a file the bank sent back (ADMIN): pick the file, upload it, and read in plain words what
// it held and what was done ("2 returns, 1 notification of change: 3 applied, 0 already on record,
// 1 parked for a person"), with the parked entries; or the server's refusal, naming line and field.
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
import { type InboundFileOutcome, MAX_BANK_FILE_BYTES, readBankFile } from '../api/bank-files';
import { outcomeSentence, parkedLine } from '../utils/bank-file-words';

export function ReadBankFileDialog({
  open,
  onOpenChange,
  onRead,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** A file was read (applied now or before): the lists change. */
  onRead: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const [outcome, setOutcome] = useState<InboundFileOutcome | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setFile(null);
    setFileError(null);
    setReading(false);
    setOutcome(null);
    setRefusal(null);
  }, [open]);

  async function read() {
    if (!file) return;
    setReading(true);
    setRefusal(null);
    try {
      setOutcome(await readBankFile(file));
      onRead();
    } catch (err) {
      setRefusal(err instanceof Error ? err.message : 'Failed to read the bank file');
    } finally {
      setReading(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(next) => !reading && onOpenChange(next)}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Read a bank file</DialogTitle>
          <DialogDescription>
            A return or notification-of-change file the bank sent back (ACH, at most 16 MB). Each entry is
            matched to the Billflow payment it answers and recorded once; the same file twice changes nothing.
          </DialogDescription>
        </DialogHeader>
        {outcome ? (
          <div className="grid gap-3">
            <p
              role="status"
              data-testid="bank-file-outcome"
              className="rounded-md border border-green-600/40 bg-green-50 px-3 py-2 text-sm font-medium text-green-900 dark:bg-green-950 dark:text-green-100"
            >
              {outcomeSentence(outcome)}
            </p>
            {outcome.parked.length > 0 ? (
              <div className="grid gap-1 text-sm">
                <p className="font-medium">Parked for a person:</p>
                <ul className="grid gap-1 font-mono text-xs" data-testid="bank-file-outcome-parked">
                  {outcome.parked.map((p) => (
                    <li key={`${p.line}-${p.originalTrace}`} className="[overflow-wrap:anywhere]">
                      {parkedLine(p)}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
          </div>
        ) : (
          <div className="grid gap-2">
            <Label htmlFor="bank-file-input">Bank file</Label>
            <Input
              id="bank-file-input"
              type="file"
              accept=".ach,.txt,text/plain"
              disabled={reading}
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? 'bank-file-input-error' : undefined}
              onChange={(e) => {
                const f = e.target.files?.[0] ?? null;
                const problem = f && f.size > MAX_BANK_FILE_BYTES ? 'The file is larger than 16 MB' : null;
                setFileError(problem);
                setRefusal(null);
                setFile(problem ? null : f);
              }}
            />
            {fileError ? (
              <p id="bank-file-input-error" className="text-sm text-destructive">
                {fileError}
              </p>
            ) : null}
            {reading ? (
              <p className="text-sm text-muted-foreground" aria-live="polite">
                Reading the file…
              </p>
            ) : null}
            {refusal ? (
              <p
                role="alert"
                data-testid="bank-file-refusal"
                className="rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-sm text-destructive [overflow-wrap:anywhere]"
              >
                {refusal}
              </p>
            ) : null}
          </div>
        )}
        <DialogFooter>
          {outcome ? (
            <Button onClick={() => onOpenChange(false)}>Done</Button>
          ) : (
            <>
              <Button variant="outline" onClick={() => onOpenChange(false)} disabled={reading}>
                Cancel
              </Button>
              <Button onClick={read} disabled={!file || reading}>
                <Upload aria-hidden="true" />
                {reading ? 'Reading…' : 'Read file'}
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
