// A labelled input with its error message, wired for assistive tech: the input is marked invalid and
// described by the message while there is one. FormField (form-field.tsx) around an Input.
import type { ComponentProps, ReactNode } from 'react';
import { FormField } from './form-field';
import { Input } from './input';

export { FieldError } from './form-field';

export function TextField({
  id,
  label,
  error,
  hint,
  required,
  ...input
}: Omit<ComponentProps<typeof Input>, 'required'> & {
  id: string;
  label: string;
  error?: string;
  hint?: ReactNode;
  /** Marks the field (" *", aria-required); the form validates it. */
  required?: boolean;
}) {
  return (
    <FormField id={id} label={label} error={error} hint={hint} required={required}>
      {(control) => <Input {...control} {...input} />}
    </FormField>
  );
}
