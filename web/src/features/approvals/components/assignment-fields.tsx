// The priority and manager pickers an approval is assigned with: on /bills when creating, and in the
// edit dialog of a PENDING approval. One place, so both screens offer the same choices.
import type { ReactNode } from 'react';
import { Label } from '../../../components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import type { ManagerOption, Priority } from '../api/approvals';
import { PRIORITIES, titleCase } from '../utils/approval-rules';

/** The manager picker's value for 'Not assigned'. */
export const NO_MANAGER = 'none';

export function PriorityField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: Priority;
  onChange: (next: Priority) => void;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>Priority</Label>
      <Select value={value} onValueChange={(v) => onChange(v as Priority)}>
        <SelectTrigger id={id} aria-label="Priority">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {PRIORITIES.map((p) => (
            <SelectItem key={p} value={p}>
              {titleCase(p)}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </div>
  );
}

export function ManagerField({
  id,
  value,
  onChange,
  options,
  error,
  disabled,
  extra,
}: {
  id: string;
  value: string;
  onChange: (next: string) => void;
  options: readonly ManagerOption[];
  error: Error | null | undefined;
  disabled?: boolean;
  /** An item before the offered managers (the edit dialog's current, no longer offered, manager). */
  extra?: ReactNode;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>Manager</Label>
      <Select value={value} onValueChange={onChange} disabled={disabled}>
        <SelectTrigger id={id} aria-label="Manager">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={NO_MANAGER}>Not assigned</SelectItem>
          {extra}
          {options.map((m) => (
            <SelectItem key={m.id} value={String(m.id)}>
              {m.displayName}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
      {error ? (
        <p role="alert" className="text-xs text-destructive">
          Managers could not be loaded: {error.message}
        </p>
      ) : null}
    </div>
  );
}
