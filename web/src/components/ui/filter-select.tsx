// One labelled filter of a list's filter card: a select whose first choice is "all", which stands
// for the filter being off (an empty value). Radix's Select cannot hold an empty value, so "all" has
// a value of its own that never reaches the caller.
import type { ReactNode } from 'react';
import { Label } from './label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from './select';

const ALL = '__all__';

export function FilterSelect<V extends string>({
  id,
  label,
  allLabel,
  value,
  onChange,
  options,
}: {
  id: string;
  label: string;
  /** The first choice, the filter off: "All", "All companies"... */
  allLabel: string;
  /** '' when the filter is off. */
  value: V | '';
  onChange: (value: V | '') => void;
  options: ReadonlyArray<{ value: V; label: ReactNode }>;
}) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Select value={value || ALL} onValueChange={(v) => onChange(v === ALL ? '' : (v as V))}>
        <SelectTrigger id={id} aria-label={label}>
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={ALL}>{allLabel}</SelectItem>
          {options.map((o) => (
            <SelectItem key={o.value} value={o.value}>
              {o.label}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </div>
  );
}
