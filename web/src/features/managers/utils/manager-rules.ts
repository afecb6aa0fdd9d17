// Rules of the managers screens.
import type { Manager } from '../api/managers';

type ManagerStatus = Manager['status'];

export const MANAGERS_PAGE_SIZE = 10;
export const USER_PICKER_LIMIT = 100;
/** The picker's value for "not linked". */
export const NO_USER = 'none';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'first last' when both exist, otherwise the e-mail. */
export function managerName(m: {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}): string {
  const first = m.firstName?.trim();
  const last = m.lastName?.trim();
  return first && last ? `${first} ${last}` : (m.email ?? '');
}

/** First letters of both names, otherwise the e-mail's first letter. */
export function managerInitials(m: {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}): string {
  const first = m.firstName?.trim();
  const last = m.lastName?.trim();
  if (first && last) return `${first[0]}${last[0]}`.toUpperCase();
  return (m.email?.trim()[0] ?? '?').toUpperCase();
}

/** 'MMM d, yyyy'. */
export function formatDay(value: string | null | undefined): string {
  const d = value ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return 'Invalid date';
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
}

/** The long date-time style of the system information card. */
export function formatLong(value: string | null | undefined): string {
  const d = value ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return 'Invalid date';
  return d.toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'short' });
}

export const STATUS_STYLE: Record<ManagerStatus, string> = {
  ACTIVE: 'border-transparent bg-green-100 text-green-800',
  INACTIVE: 'border-transparent bg-gray-100 text-gray-700',
  SUSPENDED: 'border-transparent bg-red-100 text-red-800',
};

export interface ManagerFormValues {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  title: string;
  /** A user id, or NO_USER. */
  userId: string;
}

export type ManagerFormErrors = Partial<Record<keyof ManagerFormValues, string>>;

export const EMPTY_MANAGER_FORM: ManagerFormValues = {
  firstName: '',
  lastName: '',
  email: '',
  phone: '',
  title: '',
  userId: NO_USER,
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateManagerForm(v: ManagerFormValues): ManagerFormErrors {
  const errors: ManagerFormErrors = {};
  if (!v.firstName.trim()) errors.firstName = 'First name is required';
  if (!v.lastName.trim()) errors.lastName = 'Last name is required';
  if (!EMAIL.test(v.email.trim())) errors.email = 'Please enter a valid email address';
  return errors;
}

/** Empty phone or title are absent; 'none' is absent, otherwise an integer. */
export function toManagerPayload(v: ManagerFormValues) {
  return {
    firstName: v.firstName.trim(),
    lastName: v.lastName.trim(),
    email: v.email.trim(),
    ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
    ...(v.title.trim() ? { title: v.title.trim() } : {}),
    ...(v.userId !== NO_USER && v.userId !== '' ? { userId: Number.parseInt(v.userId, 10) } : {}),
  };
}

export function formValuesOf(m: Manager): ManagerFormValues {
  return {
    firstName: m.firstName,
    lastName: m.lastName,
    email: m.email,
    phone: m.phone ?? '',
    title: m.title ?? '',
    userId: m.userId === null ? NO_USER : String(m.userId),
  };
}
