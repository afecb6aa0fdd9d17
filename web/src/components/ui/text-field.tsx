// A labelled input with its error message, wired for assistive tech: the input is marked invalid and
// described by the message while there is one. The one field shape of every form.
import type { ComponentProps } from 'react';
import { Input } from './input';
import { Label } from './label';

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="text-sm text-destructive">
      {message}
    </p>
  ) : null;
}

export function TextField({
  id,
  label,
  error,
  ...input
}: ComponentProps<typeof Input> & { id: string; label: string; error?: string }) {
  const errorId = `${id}-error`;
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...input}
      />
      <FieldError id={errorId} message={error} />
    </div>
  );
}
