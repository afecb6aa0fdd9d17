// Client validation of the sign-in form.
import { SIGN_IN_PASSWORD_MIN } from '../../../lib/constants';

export interface LoginValues {
  email: string;
  password: string;
}

export type LoginErrors = Partial<Record<keyof LoginValues, string>>;

export const LOGIN_VALIDATION = {
  email: 'Please enter a valid email address',
  password: `Password must be at least ${SIGN_IN_PASSWORD_MIN} characters`,
} as const;

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function isValidEmail(value: string): boolean {
  return EMAIL.test(value.trim());
}

export function validateLogin(values: LoginValues): LoginErrors {
  const errors: LoginErrors = {};
  if (!isValidEmail(values.email)) errors.email = LOGIN_VALIDATION.email;
  if (values.password.length < SIGN_IN_PASSWORD_MIN) errors.password = LOGIN_VALIDATION.password;
  return errors;
}
