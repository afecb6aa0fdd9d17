import { ArrowDown, ArrowUp } from 'lucide-react';
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
import { toast } from '../../../components/ui/use-toast';
import { displayName } from '../../../lib/auth';
import { useGqlMutation } from '../../../lib/use-graphql';
import { ChangeUserRole, type Role, USER_MESSAGES, type User } from '../api/users';
import { roleChangeKind, roleChangeText } from '../utils/user-rules';
import { RoleBadge } from './role-badge';
import { RoleSelect } from './role-select';

export function ChangeRoleDialog({
  user,
  open,
  onOpenChange,
  onChanged,
}: {
  user: User | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onChanged?: (user: User) => void;
}) {
  const [role, setRole] = useState<Role>(user?.role ?? 'USER');
  const [busy, setBusy] = useState(false);
  const changeRole = useGqlMutation(ChangeUserRole, 'Failed to update role');
  useEffect(() => {
    if (open && user) setRole(user.role);
  }, [open, user]);
  if (!user) return null;
  const kind = roleChangeKind(user.role, role);

  async function submit() {
    if (!user || kind === 'none') return;
    setBusy(true);
    try {
      const { changeUserRole: changed } = await changeRole({ id: user.id, role });
      toast.success(USER_MESSAGES.roleUpdated);
      onChanged?.(changed);
      onOpenChange(false);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to update role');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Change User Role</DialogTitle>
          <DialogDescription>Choose a new role for {displayName(user)}.</DialogDescription>
        </DialogHeader>
        <div className="grid gap-4">
          <div className="flex items-center gap-2 text-sm">
            <span className="text-muted-foreground">Current role:</span>
            <RoleBadge role={user.role} />
          </div>
          <div className="grid gap-2">
            <Label htmlFor="change-role-select">New Role</Label>
            <RoleSelect id="change-role-select" label="New Role" value={role} onChange={setRole} />
          </div>
          {kind !== 'none' ? (
            <p
              data-testid="role-change-kind"
              className={
                kind === 'upgrade'
                  ? 'flex items-center gap-2 rounded-md border border-green-600/40 bg-green-50 p-3 text-sm text-green-900'
                  : 'flex items-center gap-2 rounded-md border border-amber-600/40 bg-amber-50 p-3 text-sm text-amber-900'
              }
            >
              {kind === 'upgrade' ? <ArrowUp aria-hidden="true" className="size-4" /> : null}
              {kind === 'downgrade' ? <ArrowDown aria-hidden="true" className="size-4" /> : null}
              {roleChangeText(user.role, role)}
            </p>
          ) : null}
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={busy || kind === 'none'}>
            {busy ? 'Updating...' : 'Update Role'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
