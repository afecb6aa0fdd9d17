// The create and edit form: names and e-mail required, phone, title and a user
// picker ('none' = not linked), and a preview card that follows what is typed.
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { FormField } from '../../../components/ui/form-field';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { TextField } from '../../../components/ui/text-field';
import type { UserChoice } from '../api/managers';
import {
  type ManagerFormErrors,
  type ManagerFormValues,
  managerInitials,
  managerName,
  NO_USER,
  validateManagerForm,
} from '../utils/manager-rules';
import { ManagerAvatar } from './manager-badges';

const userLabel = (u: UserChoice) => {
  const name = [u.firstName, u.lastName].filter(Boolean).join(' ');
  return name ? `${name} (${u.email})` : u.email;
};

export function ManagerForm({
  heading,
  initial,
  users,
  submitLabel,
  busyLabel,
  serverErrors,
  onSubmit,
  onCancel,
}: {
  heading: string;
  initial: ManagerFormValues;
  users: readonly UserChoice[];
  submitLabel: string;
  busyLabel: string;
  serverErrors?: Record<string, string>;
  onSubmit: (values: ManagerFormValues) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<ManagerFormErrors>({});
  const [busy, setBusy] = useState(false);
  const shown = { ...serverErrors, ...errors } as Record<string, string | undefined>;
  const set = <K extends keyof ManagerFormValues>(key: K, value: ManagerFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateManagerForm(values);
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
    key: 'firstName' | 'lastName' | 'email' | 'phone' | 'title',
    label: string,
    type = 'text',
    required = false,
  ) => (
    <TextField
      id={`manager-${key}`}
      label={label}
      required={required}
      type={type}
      value={values[key]}
      autoComplete="off"
      onChange={(e) => set(key, e.target.value)}
      error={shown[key]}
    />
  );
  const previewName = managerName(values) || 'New Manager';
  // A linked user no longer among the choices (deleted, or past the first 100) still shows.
  const choices =
    users.some((u) => String(u.id) === values.userId) || values.userId === NO_USER
      ? users
      : [
          ...users,
          {
            id: Number(values.userId),
            email: `User #${values.userId}`,
            firstName: null,
            lastName: null,
          },
        ];

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-6 lg:grid-cols-3">
      <Card className="lg:col-span-2">
        <CardHeader>
          <CardTitle as="h2">{heading}</CardTitle>
          <CardDescription>First name, last name and email address are required.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {text('firstName', 'First Name')}
          {text('lastName', 'Last Name')}
          {text('email', 'Email Address', 'email', true)}
          {text('phone', 'Phone', 'tel')}
          {text('title', 'Title')}
          <FormField id="manager-user" label="Linked User" error={shown.userId}>
            {(control) => (
              <Select value={values.userId} onValueChange={(v) => set('userId', v)}>
                <SelectTrigger {...control} aria-label="Linked User">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  <SelectItem value={NO_USER}>No linked user</SelectItem>
                  {choices.map((u) => (
                    <SelectItem key={u.id} value={String(u.id)}>
                      {userLabel(u)}
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
            )}
          </FormField>
        </CardContent>
      </Card>
      <Card aria-label="Preview" data-testid="manager-preview">
        <CardHeader>
          <CardTitle as="h2">Preview</CardTitle>
        </CardHeader>
        <CardContent className="flex items-center gap-3">
          <ManagerAvatar initials={managerInitials(values)} large />
          <div className="min-w-0">
            <p className="truncate font-medium">{previewName}</p>
            {values.email.trim() ? (
              <p className="truncate text-sm text-muted-foreground">{values.email.trim()}</p>
            ) : null}
            {values.title.trim() ? (
              <p className="truncate text-sm text-muted-foreground">{values.title.trim()}</p>
            ) : null}
          </div>
        </CardContent>
      </Card>
      <div className="flex justify-end gap-2 lg:col-span-3">
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
