import { AlertCircle, Info } from 'lucide-react';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { login } from '../../../lib/auth';
import { FAILED_LOGIN_HINT_THRESHOLD } from '../../../lib/constants';
import { loginErrorMessage } from '../../../lib/errors';
import type { User } from '../../../types/api';
import { type LoginErrors, type LoginValues, validateLogin } from '../utils/validate-login';

export const FAILED_ATTEMPTS_HINT =
  'Multiple failed attempts detected. Please double-check your credentials.';

export interface LoginFormProps {
  onSuccess?: (user: User) => void;
  /** The sign-in call; the session's by default (tests pass their own). */
  signIn?: (email: string, password: string) => Promise<User>;
}

export function LoginForm({ onSuccess, signIn = login }: LoginFormProps) {
  const id = useId();
  const [values, setValues] = useState<LoginValues>({ email: '', password: '' });
  const [errors, setErrors] = useState<LoginErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [failedAttempts, setFailedAttempts] = useState(0);
  const [focusEmail, setFocusEmail] = useState(0);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusEmail > 0) emailRef.current?.focus();
  }, [focusEmail]);

  const update = (field: keyof LoginValues, value: string) => {
    const next = { ...values, [field]: value };
    setValues(next);
    // Like react-hook-form: validate on submit, then again on every change.
    if (submitted) setErrors(validateLogin(next));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (submitting) return;
    setSubmitted(true);
    const found = validateLogin(values);
    setErrors(found);
    if (found.email) return emailRef.current?.focus();
    if (found.password) return passwordRef.current?.focus();

    setSubmitting(true);
    setFormError(null);
    try {
      const user = await signIn(values.email.trim(), values.password);
      setFailedAttempts(0);
      onSuccess?.(user);
    } catch (err) {
      const message = loginErrorMessage(err);
      setFormError(message);
      setFailedAttempts((n) => n + 1);
      if (message.includes('Invalid email or password')) setFocusEmail((n) => n + 1);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <form noValidate onSubmit={onSubmit} className="grid gap-5" aria-label="Sign in">
      {formError ? (
        <div
          role="alert"
          className="flex items-start gap-3 rounded-lg border border-destructive/40 bg-destructive/5 px-4 py-3 text-sm text-destructive"
        >
          <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          <p>{formError}</p>
        </div>
      ) : null}

      <TextField
        ref={emailRef}
        id={`${id}-email`}
        label="Email"
        name="email"
        type="email"
        inputMode="email"
        autoComplete="email"
        placeholder="name@company.com"
        autoFocus
        value={values.email}
        onChange={(e) => update('email', e.target.value)}
        error={errors.email}
      />

      <TextField
        ref={passwordRef}
        id={`${id}-password`}
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        placeholder="Enter your password"
        value={values.password}
        onChange={(e) => update('password', e.target.value)}
        error={errors.password}
      />

      {failedAttempts >= FAILED_LOGIN_HINT_THRESHOLD ? (
        <p
          role="status"
          className="flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900"
        >
          <Info className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          {FAILED_ATTEMPTS_HINT}
        </p>
      ) : null}

      <Button
        type="submit"
        size="lg"
        className="w-full"
        disabled={submitting}
        aria-busy={submitting || undefined}
      >
        {submitting ? (
          <>
            <Spinner className="text-current" />
            Signing in...
          </>
        ) : (
          'Sign in'
        )}
      </Button>
    </form>
  );
}
