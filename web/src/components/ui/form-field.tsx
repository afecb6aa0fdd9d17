// The one field shape of every form: a label (with " *" when the field is required), the control,
// an optional hint, and the error text; the control is marked invalid and described by the error
// (and the hint) for assistive tech. TextField (text-field.tsx) is FormField around an Input.
//
// Usage:
//   <FormField id="manager-user" label="Linked User" error={errors.userId} hint="Optional">
//     {(control) => <SelectTrigger {...control} />}
//   </FormField>
//   <TextField id="email" label="Email Address" required value={…} onChange={…} error={errors.email} />
// `required` only marks the field (" *" and aria-required); the form's own rules validate it, so
// the browser's native bubbles never appear.
import type { ReactNode } from 'react';
import { Label } from './label';

export interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
  'aria-required': true | undefined;
}

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="text-sm text-destructive">
      {message}
    </p>
  ) : null;
}

/** The aria attributes of a field's control, for controls rendered outside FormField. */
export function controlProps(id: string, options: { error?: string; hint?: boolean; required?: boolean }) {
  const described = [options.hint ? `${id}-hint` : null, options.error ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return {
    id,
    'aria-invalid': options.error ? true : undefined,
    'aria-describedby': described || undefined,
    'aria-required': options.required ? true : undefined,
  } satisfies ControlProps;
}

export function FormField({
  id,
  label,
  required,
  error,
  hint,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  required?: boolean;
  error?: string;
  hint?: ReactNode;
  className?: string;
  /** The control; spread the given props on it (id and aria attributes). */
  children: (control: ControlProps) => ReactNode;
}) {
  return (
    <div className={className ?? 'grid gap-2'}>
      <Label htmlFor={id}>
        {label}
        {required ? ' *' : null}
      </Label>
      {children(controlProps(id, { error, hint: Boolean(hint), required }))}
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
