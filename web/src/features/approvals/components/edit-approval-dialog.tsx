// 'Edit Approval' (update while PENDING): priority, manager (the staff picker's ACTIVE
// managers) and recipients (comma- or line-separated e-mails, checked as the server checks them).
// Only what changed is sent; the server's refusal is shown in a toast and the dialog stays open.
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
import { Label } from '../../../components/ui/label';
import { SelectItem } from '../../../components/ui/select';
import { FieldError } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  type Approval,
  ManagerOptionsQuery,
  type Priority,
  UpdateApproval,
  type UpdateApprovalInput,
} from '../api/approvals';
import { parseRecipients } from '../utils/approval-rules';
import { ManagerField, NO_MANAGER, PriorityField } from './assignment-fields';

export function EditApprovalDialog({
  open,
  onOpenChange,
  approval,
  onSaved,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  approval: Approval;
  /** After the write: the detail and its history re-read through the cache. */
  onSaved?: () => void;
}) {
  const read = useGqlQuery(ManagerOptionsQuery, {}, { pause: !open, fallback: 'Failed to fetch managers' });
  const managers = { data: read.data?.approvalManagerOptions, error: read.error };
  const update = useGqlMutation(UpdateApproval, 'Failed to update approval');
  const [priority, setPriority] = useState<Priority>(approval.priority);
  const [managerId, setManagerId] = useState(NO_MANAGER);
  const [recipientsText, setRecipientsText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Each opening starts from the approval as it is now (it may have changed live meanwhile).
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on opening only, not on every live change
  useEffect(() => {
    if (!open) return;
    setPriority(approval.priority);
    setManagerId(approval.managerId === null ? NO_MANAGER : String(approval.managerId));
    setRecipientsText((approval.recipients ?? []).join('\n'));
    setError(null);
  }, [open]);

  const options = managers.data ?? [];
  // The current manager stays choosable even when no longer on offer (inactive): keeping it is no change.
  const currentMissing =
    approval.managerId !== null &&
    managers.data !== undefined &&
    !options.some((m) => m.id === approval.managerId);

  function changes(): UpdateApprovalInput | null {
    const body: UpdateApprovalInput = {};
    if (priority !== approval.priority) body.priority = priority;
    const nextManager = managerId === NO_MANAGER ? null : Number(managerId);
    if (nextManager !== approval.managerId) body.managerId = nextManager;
    const parsed = parseRecipients(recipientsText);
    if (parsed.error) return null;
    const current = approval.recipients ?? [];
    if (parsed.recipients.length !== current.length || parsed.recipients.some((r, i) => r !== current[i]))
      body.recipients = parsed.recipients;
    return body;
  }

  async function save() {
    const parsed = parseRecipients(recipientsText);
    if (parsed.error) {
      setError(parsed.error);
      return;
    }
    const body = changes();
    if (!body || Object.keys(body).length === 0) {
      onOpenChange(false);
      return;
    }
    setBusy(true);
    try {
      await update({ id: approval.id, input: body });
      toast.success('Approval updated successfully');
      onSaved?.();
      onOpenChange(false);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to update approval');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(o) => !busy && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Edit Approval</DialogTitle>
          <DialogDescription>
            Change the priority, the manager and who is told, while it is pending.
          </DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <PriorityField id="edit-approval-priority" value={priority} onChange={setPriority} />
          <ManagerField
            id="edit-approval-manager"
            value={managerId}
            onChange={setManagerId}
            options={options}
            error={managers.error}
            extra={
              currentMissing ? (
                <SelectItem value={String(approval.managerId)}>
                  {approval.managerName ?? approval.managerEmail ?? `Manager ${approval.managerId}`} (current)
                </SelectItem>
              ) : null
            }
          />
          <div className="grid gap-2">
            <Label htmlFor="edit-approval-recipients">Recipients</Label>
            <textarea
              id="edit-approval-recipients"
              rows={3}
              value={recipientsText}
              onChange={(e) => {
                setRecipientsText(e.target.value);
                setError(null);
              }}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'edit-approval-recipients-error' : 'edit-approval-recipients-hint'}
              className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive"
            />
            {error ? (
              <FieldError id="edit-approval-recipients-error" message={error} />
            ) : (
              <p id="edit-approval-recipients-hint" className="text-xs text-muted-foreground">
                E-mail addresses, separated by commas or on separate lines (at most 20).
              </p>
            )}
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save Changes'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
