// The create and edit form: Basic Information; the accounting-service settings (edit
// only, and only once connected: realm, payment account reference, the OAuth dialog); User Assignments
// (the manager from the managers, the other three from users with role ADMIN, MODERATOR or USER).
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { FormField } from '../../../components/ui/form-field';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { TextField } from '../../../components/ui/text-field';
import type { Assignee, Company, ManagerChoice, UserChoice } from '../api/companies';
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

/** The company field that carries each assignment's person. */
export const ASSIGNEE_OF = {
  managerId: 'manager',
  processorId: 'processor',
  approverId: 'approver',
  accountantId: 'accountant',
} as const satisfies Record<AssignmentKey, keyof Company>;

export interface Choice {
  id: number;
  label: string;
}

export const managerChoices = (managers: readonly ManagerChoice[]): Choice[] =>
  managers.map((m) => ({ id: m.id, label: `${personName(m)} (${m.email})` }));

/** Only ADMIN, MODERATOR and USER may hold a company role (the server refuses the others). */
export const userChoices = (users: readonly UserChoice[]): Choice[] =>
  users
    .filter((u) => ASSIGNABLE_ROLES.has(u.role) && u.isActive)
    .map((u) => ({ id: u.id, label: `${personName(u)} (${u.email})` }));

/**
 * One assignment select; a current assignee missing from the choices still shows. A long name is cut
 * with an ellipsis inside the field (the whole name in its title), so two selects side by side never
 * overlap.
 */
export function AssignmentSelect({
  id,
  label,
  value,
  choices,
  current,
  disabled,
  error,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  choices: Choice[];
  current?: Assignee | null;
  disabled?: boolean;
  error?: string;
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
  const chosen = value === NONE ? 'Unassigned' : all.find((c) => String(c.id) === value)?.label;
  return (
    <FormField id={id} label={label} error={error} className="grid min-w-0 gap-2">
      {(control) => (
        <Select value={value} onValueChange={onChange} disabled={disabled}>
          <SelectTrigger
            {...control}
            aria-label={label}
            title={chosen}
            data-testid={`${id}-trigger`}
            className="min-w-0 [&>span]:min-w-0 [&>span]:truncate"
          >
            <SelectValue />
          </SelectTrigger>
          <SelectContent className="max-w-[min(32rem,calc(100vw-2rem))]">
            <SelectItem value={NONE}>Unassigned</SelectItem>
            {all.map((c) => (
              <SelectItem key={c.id} value={String(c.id)} title={c.label} className="[&>span]:truncate">
                {c.label}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      )}
    </FormField>
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
  managers: readonly ManagerChoice[];
  users: readonly UserChoice[];
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

  const text = (key: keyof CompanyFormValues, label: string, type = 'text', required = false) => (
    <TextField
      id={`company-${key}`}
      label={label}
      required={required}
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
          {text('name', 'Company Name', 'text', true)}
          {text('email', 'Email', 'email')}
          {text('phone', 'Phone', 'tel')}
          {text('website', 'Website', 'url')}
          <div className="sm:col-span-2">{text('address', 'Address')}</div>
          <FormField
            id="company-description"
            label="Description"
            error={shown.description}
            className="grid gap-2 sm:col-span-2"
          >
            {(control) => (
              <textarea
                {...control}
                className="min-h-20 w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"
                value={values.description}
                maxLength={2000}
                onChange={(e) => set('description', e.target.value)}
              />
            )}
          </FormField>
          <FormField id="company-industry" label="Industry" error={shown.industry}>
            {(control) => (
              <Select
                value={values.industry || NO_INDUSTRY}
                onValueChange={(v) => set('industry', v === NO_INDUSTRY ? '' : v)}
              >
                <SelectTrigger {...control} aria-label="Industry">
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
            )}
          </FormField>
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
            <AssignmentSelect
              key={key}
              id={`company-${key}`}
              label={ASSIGNMENT_LABELS[key]}
              value={values[key]}
              choices={key === 'managerId' ? mChoices : uChoices}
              current={company?.[ASSIGNEE_OF[key]]}
              error={shown[key]}
              onChange={(v) => set(key, v)}
            />
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
