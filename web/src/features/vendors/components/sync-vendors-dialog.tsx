// Sync from QuickBooks: pick a connected company, start the job, and
// watch the bar fill as vendorSyncProgress reports. A poll of the sync covers a job that finished
// before the subscription was up.
import { useEffect, useState } from 'react';
import { useClient } from 'urql';
import { Button } from '../../../components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Label } from '../../../components/ui/label';
import { Progress } from '../../../components/ui/progress';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { useVendorSyncProgress } from '../api/vendor-sync-progress';
import { type CompanyChoice, SyncVendors, VendorSyncQuery } from '../api/vendors';
import { plural, VENDOR_SYNC_LIMIT } from '../utils/vendor-rules';

export function SyncVendorsDialog({
  open,
  onOpenChange,
  companies,
  initialCompanyId,
  onSynced,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  companies: readonly Pick<CompanyChoice, 'id' | 'name' | 'qbConnectionStatus'>[];
  initialCompanyId: string;
  onSynced: () => void;
}) {
  // A MODERATOR reads no realm id: 'connected' is only ever set with one.
  const connected = companies.filter((c) => c.qbConnectionStatus === 'connected');
  const [companyId, setCompanyId] = useState('');
  const [syncId, setSyncId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [final, setFinal] = useState<{ synced: number; failed: number; error: string | null } | null>(null);
  const live = useVendorSyncProgress(syncId);
  const client = useClient();
  const startVendorSync = useGqlMutation(SyncVendors, 'An error occurred');

  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the dialog opens
  useEffect(() => {
    if (!open) return;
    setSyncId(null);
    setFinal(null);
    setCompanyId(connected.some((c) => String(c.id) === initialCompanyId) ? initialCompanyId : '');
  }, [open]);

  // The end, from the live feed or from the poll, whichever comes first.
  useEffect(() => {
    if (live?.done && !final) setFinal({ synced: live.synced, failed: live.failed, error: null });
  }, [live, final]);
  useEffect(() => {
    if (!syncId || final) return;
    const timer = setInterval(async () => {
      const answer = await client
        .query(VendorSyncQuery, { syncId }, { requestPolicy: 'network-only' })
        .toPromise()
        .catch(() => undefined);
      const s = answer?.data?.vendorSync;
      if (s && (s.status === 'completed' || s.status === 'failed'))
        setFinal({ synced: s.synced, failed: s.failed, error: s.error });
    }, 2000);
    return () => clearInterval(timer);
  }, [syncId, final, client]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per outcome
  useEffect(() => {
    if (!final) return;
    if (final.error) toast.error(final.error, 'Failed to sync vendors');
    else
      toast.success(
        'Vendors synced',
        `${final.synced} synced${final.failed ? `, ${final.failed} failed` : ''} from QuickBooks`,
      );
    onSynced();
  }, [final]);

  async function start() {
    setStarting(true);
    try {
      const { syncVendors } = await startVendorSync({
        companyId: Number(companyId),
        limit: VENDOR_SYNC_LIMIT,
        offset: 0,
      });
      setSyncId(syncVendors.syncId);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred', 'Failed to sync vendors');
    } finally {
      setStarting(false);
    }
  }

  const running = syncId !== null && !final;
  const processed = final ? final.synced + final.failed : (live?.processed ?? 0);
  const total = live?.total ?? null;
  const percent = final ? 100 : total ? Math.min(100, Math.round((processed / total) * 100)) : 0;

  return (
    <Dialog open={open} onOpenChange={(next) => !running && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Sync Vendors from QuickBooks</DialogTitle>
          <DialogDescription>
            Brings in the company's vendors (names, contacts, active). Bank details stay as kept here.
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <Label htmlFor="sync-company">Company</Label>
          <Select value={companyId} onValueChange={setCompanyId} disabled={syncId !== null}>
            <SelectTrigger id="sync-company" aria-label="Company to sync">
              <SelectValue placeholder="Select a connected company" />
            </SelectTrigger>
            <SelectContent>
              {connected.map((c) => (
                <SelectItem key={c.id} value={String(c.id)}>
                  {c.name}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
          {connected.length === 0 ? (
            <p className="text-sm text-muted-foreground">
              No company is connected to QuickBooks. Connect one from its page first.
            </p>
          ) : null}
        </div>
        {syncId ? (
          <div className="grid gap-2" data-testid="sync-progress">
            <Progress value={percent} label="Sync progress" />
            <p className="text-sm text-muted-foreground" aria-live="polite">
              {final
                ? final.error
                  ? `Sync failed: ${final.error}`
                  : `Done: ${final.synced} synced, ${final.failed} failed`
                : live?.waiting
                  ? `Waiting for QuickBooks (it asked to slow down): ${total !== null ? `${processed} of ${plural(total, 'vendor')}` : plural(processed, 'vendor')} so far, going on${live.resumesAt ? ` at ${new Date(live.resumesAt).toLocaleTimeString()}` : ' shortly'}`
                  : total !== null
                    ? `${processed} of ${plural(total, 'vendor')}`
                    : 'Starting…'}
            </p>
          </div>
        ) : null}
        <DialogFooter>
          {final ? (
            <Button onClick={() => onOpenChange(false)}>Done</Button>
          ) : (
            <>
              <Button variant="outline" onClick={() => onOpenChange(false)} disabled={running}>
                Cancel
              </Button>
              <Button onClick={start} disabled={!companyId || starting || running}>
                {running ? 'Syncing…' : starting ? 'Starting…' : 'Start Sync'}
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
