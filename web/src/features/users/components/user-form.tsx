import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { FormField } from '../../../components/ui/form-field';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import {
  CREATE_USER_PASSWORD_MIN,
  changesEmail,
  type UserFormErrors,
  type UserFormValues,
  validateUserForm,
} from '../utils/user-rules';
import { RoleSelect } from './role-select';

export const EMPTY_USER_FORM: UserFormValues = {
  email: '',
  password: '',
  currentPassword: '',
  firstName: '',
  lastName: '',
  role: 'USER',
  isActive: true,
};

/**
 * The create and edit form: the password only when creating. Editing one's own account
 * (`ownAccount`), a change of address also asks for the current password (the server requires it).
 */
export function UserForm({
  mode,
  ownAccount = false,
  initial,
  submitLabel,
  busyLabel,
  serverErrors,
  onSubmit,
  onCancel,
}: {
  mode: 'create' | 'edit';
  ownAccount?: boolean;
  initial: UserFormValues;
  submitLabel: string;
  busyLabel: string;
  serverErrors?: Record<string, string>;
  onSubmit: (values: UserFormValues) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<UserFormValues>(initial);
  const [errors, setErrors] = useState<UserFormErrors>({});
  const [busy, setBusy] = useState(false);
  const shown = { ...serverErrors, ...errors } as Record<string, string | undefined>;
  const set = <K extends keyof UserFormValues>(key: K, value: UserFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const needsCurrent = mode === 'edit' && ownAccount && changesEmail(initial.email, values.email);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateUserForm(values, mode, needsCurrent);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit(values);
    } finally {
      setBusy(false);
    }
  }

  const text = (
    key: 'email' | 'password' | 'currentPassword' | 'firstName' | 'lastName',
    label: string,
    type = 'text',
  ) => (
    <TextField
      id={`user-${key}`}
      label={label}
      type={type}
      value={values[key]}
      autoComplete={
        key === 'password' ? 'new-password' : key === 'currentPassword' ? 'current-password' : 'off'
      }
      onChange={(e) => set(key, e.target.value)}
      error={shown[key]}
    />
  );

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-6">
      <Card>
        <CardHeader>
          <CardTitle as="h2">User Information</CardTitle>
          <CardDescription>
            {mode === 'create'
              ? `Email and a password of at least ${CREATE_USER_PASSWORD_MIN} characters are required.`
              : 'Update the account details.'}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {text('email', 'Email', 'email')}
          {mode === 'create' ? (
            text('password', 'Password', 'password')
          ) : needsCurrent ? (
            text('currentPassword', 'Current Password', 'password')
          ) : (
            <div className="hidden sm:block" />
          )}
          {text('firstName', 'First Name')}
          {text('lastName', 'Last Name')}
          <FormField id="user-role" label="Role" error={shown.role}>
            {(control) => (
              <RoleSelect
                id="user-role"
                label="Role"
                value={values.role}
                onChange={(r) => set('role', r)}
                control={control}
              />
            )}
          </FormField>
          <div className="flex items-center gap-3 self-end pb-2">
            <Switch
              id="user-active"
              checked={values.isActive}
              onCheckedChange={(checked) => set('isActive', checked)}
              aria-label="Active"
            />
            <Label htmlFor="user-active">Active</Label>
          </div>
        </CardContent>
      </Card>
      <div className="flex justify-end gap-2">
        <Button variant="outline" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </Button>
      </div>
    </form>
  );
}
