// The create and edit form (spec 1 §2, §5): Basic Information; the accounting-service settings (edit
// only, and only once connected: realm, payment account reference, the OAuth dialog); User Assignments
// (the manager from the managers, the other three from users with role ADMIN, MODERATOR or USER).
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { FieldError, TextField } from '../../../components/ui/text-field';
import type { Company, Manager, User } from '../../../types/api';
import {
  type CompanyFormErrors,
  type CompanyFormValues,
  INDUSTRIES,
  NONE,
  personName,
  validateCompanyForm,
} from '../utils/company-rules';
import { QbStatusBadge } from './company-badges';

const NO_INDUSTRY = 'unset';
const ASSIGNABLE_ROLES = new Set(['ADMIN', 'MODERATOR', 'USER']);

export type AssignmentKey = 'managerId' | 'processorId' | 'approverId' | 'accountantId';
export const ASSIGNMENT_LABELS: Record<AssignmentKey, string> = {
  managerId: 'Manager',
  processorId: 'Processor',
  approverId: 'Approver',
  accountantId: 'Accountant',
};

export interface Choice {
  id: number;
  label: string;
}

export const managerChoices = (managers: Manager[]): Choice[] =>
  managers.map((m) => ({ id: m.id, label: `${personName(m)} (${m.email})` }));

/** Only ADMIN, MODERATOR and USER may hold a company role (the server refuses the others). */
export const userChoices = (users: User[]): Choice[] =>
  users
    .filter((u) => ASSIGNABLE_ROLES.has(u.role) && u.isActive)
    .map((u) => ({ id: u.id, label: `${personName(u)} (${u.email})` }));

/** One assignment select; a current assignee missing from the choices still shows. */
export function AssignmentSelect({
  id,
  label,
  value,
  choices,
  current,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  choices: Choice[];
  current?: { id: number; firstName: string | null; lastName: string | null; email: string } | null;
  disabled?: boolean;
  onChange: (value: string) => void;
}) {
  const all =
    value === NONE || choices.some((c) => String(c.id) === value)
      ? choices
      : [
          ...choices,
          {
            id: Number(value),
            label: current ? `${personName(current)} (${current.email})` : `#${value}`,
          },
        ];
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Select value={value} onValueChange={onChange} disabled={disabled}>
        <SelectTrigger id={id} aria-label={label}>
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={NONE}>Unassigned</SelectItem>
          {all.map((c) => (
            <SelectItem key={c.id} value={String(c.id)}>
              {c.label}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </div>
  );
}

export function CompanyForm({
  initial,
  company,
  managers,
  users,
  submitLabel,
  busyLabel,
  serverErrors,
  onSubmit,
  onCancel,
  onConfigureQuickBooks,
}: {
  initial: CompanyFormValues;
  /** Edit mode: the company as loaded. */
  company?: Company;
  managers: Manager[];
  users: User[];
  submitLabel: string;
  busyLabel: string;
  serverErrors?: Record<string, string>;
  onSubmit: (values: CompanyFormValues) => Promise<void>;
  onCancel: () => void;
  onConfigureQuickBooks?: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<CompanyFormErrors>({});
  const [busy, setBusy] = useState(false);
  const shown = { ...serverErrors, ...errors } as Record<string, string | undefined>;
  const set = <K extends keyof CompanyFormValues>(key: K, value: CompanyFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateCompanyForm(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit(values);
    } finally {
      setBusy(false);
    }
  }

  const text = (key: keyof CompanyFormValues, label: string, type = 'text') => (
    <TextField
      id={`company-${key}`}
      label={label}
      type={type}
      value={values[key]}
      autoComplete="off"
      onChange={(e) => set(key, e.target.value)}
      error={shown[key]}
    />
  );
  const mChoices = managerChoices(managers);
  const uChoices = userChoices(users);

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-6">
      <Card>
        <CardHeader>
          <CardTitle as="h2">Basic Information</CardTitle>
          <CardDescription>The company name is required; everything else is optional.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {text('name', 'Company Name *')}
          {text('email', 'Email', 'email')}
          {text('phone', 'Phone', 'tel')}
          {text('website', 'Website', 'url')}
          <div className="sm:col-span-2">{text('address', 'Address')}</div>
          <div className="grid gap-2 sm:col-span-2">
            <Label htmlFor="company-description">Description</Label>
            <textarea
              id="company-description"
              className="min-h-20 w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"
              value={values.description}
              maxLength={2000}
              onChange={(e) => set('description', e.target.value)}
            />
            <FieldError id="company-description-error" message={shown.description} />
          </div>
          <div className="grid gap-2">
            <Label htmlFor="company-industry">Industry</Label>
            <Select
              value={values.industry || NO_INDUSTRY}
              onValueChange={(v) => set('industry', v === NO_INDUSTRY ? '' : v)}
            >
              <SelectTrigger id="company-industry" aria-label="Industry">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={NO_INDUSTRY}>Select an industry</SelectItem>
                {INDUSTRIES.map((i) => (
                  <SelectItem key={i} value={i}>
                    {i}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
            <FieldError id="company-industry-error" message={shown.industry} />
          </div>
        </CardContent>
      </Card>
      {company?.qbRealmId ? (
        <Card>
          <CardHeader>
            <CardTitle as="h2">QuickBooks Settings</CardTitle>
            <CardDescription>
              The connection to QuickBooks Online and the account payments come from.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4 sm:grid-cols-2">
            <div className="grid gap-1 text-sm">
              <span className="text-muted-foreground">Realm ID</span>
              <span className="font-mono">{company.qbRealmId}</span>
            </div>
            <div className="grid gap-1 text-sm">
              <span className="text-muted-foreground">Connection</span>
              <QbStatusBadge company={company} />
            </div>
            {text('qbPaymentAccountReference', 'Payment Account Reference')}
            <div className="flex items-end">
              <Button type="button" variant="outline" onClick={onConfigureQuickBooks}>
                Configure QuickBooks
              </Button>
            </div>
          </CardContent>
        </Card>
      ) : null}
      <Card>
        <CardHeader>
          <CardTitle as="h2">User Assignments</CardTitle>
          <CardDescription>
            Who manages, processes, approves and accounts for this company's bills.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {(Object.keys(ASSIGNMENT_LABELS) as AssignmentKey[]).map((key) => (
            <div key={key} className="grid gap-1">
              <AssignmentSelect
                id={`company-${key}`}
                label={ASSIGNMENT_LABELS[key]}
                value={values[key]}
                choices={key === 'managerId' ? mChoices : uChoices}
                current={company?.[key.replace('Id', '') as 'manager']}
                onChange={(v) => set(key, v)}
              />
              <FieldError id={`company-${key}-error`} message={shown[key]} />
            </div>
          ))}
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
