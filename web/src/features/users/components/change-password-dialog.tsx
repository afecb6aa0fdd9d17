import { type FormEvent, useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { TextField } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { displayName } from '../../../lib/auth';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation } from '../../../lib/use-graphql';
import { ChangeOwnPassword, SetUserPassword, USER_MESSAGES, type User } from '../api/users';
import { type PasswordErrors, validatePasswordChange } from '../utils/user-rules';

/**
 * Sets another user's password (the admin route), or, on one's own account (`own`), changes it with
 * the current one: the server refuses the admin route on oneself.
 */
export function ChangePasswordDialog({
  user,
  own = false,
  open,
  onOpenChange,
}: {
  user: User | null;
  own?: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [errors, setErrors] = useState<PasswordErrors>({});
  const [busy, setBusy] = useState(false);
  const changeOwn = useGqlMutation(ChangeOwnPassword, 'Failed to change password');
  const setPassword = useGqlMutation(SetUserPassword, 'Failed to change password');
  useEffect(() => {
    if (open) {
      setCurrentPassword('');
      setNewPassword('');
      setConfirmPassword('');
      setErrors({});
    }
  }, [open]);
  if (!user) return null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!user) return;
    const found = validatePasswordChange(newPassword, confirmPassword, own ? { currentPassword } : undefined);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      if (own) await changeOwn({ currentPassword, newPassword });
      else await setPassword({ id: user.id, newPassword });
      toast.success(USER_MESSAGES.passwordChanged);
      onOpenChange(false);
    } catch (err) {
      if (err instanceof ApiError && Object.keys(err.fieldErrors).length > 0) setErrors(err.fieldErrors);
      toast.error(err instanceof Error ? err.message : 'Failed to change password');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-4">
          <DialogHeader>
            <DialogTitle>Change Password</DialogTitle>
            <DialogDescription>
              {own ? 'Change your own password.' : `Set a new password for ${displayName(user)}.`}
            </DialogDescription>
          </DialogHeader>
          {own && (
            <TextField
              id="current-password"
              label="Current Password"
              type="password"
              autoComplete="current-password"
              value={currentPassword}
              onChange={(e) => setCurrentPassword(e.target.value)}
              error={errors.currentPassword}
            />
          )}
          <TextField
            id="new-password"
            label="New Password"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
            error={errors.newPassword}
          />
          <TextField
            id="confirm-password"
            label="Confirm Password"
            type="password"
            autoComplete="new-password"
            value={confirmPassword}
            onChange={(e) => setConfirmPassword(e.target.value)}
            error={errors.confirmPassword}
          />
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy ? 'Changing...' : 'Change Password'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
