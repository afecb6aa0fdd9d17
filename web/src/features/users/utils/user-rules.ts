// Rules of the user screens: form validation, role levels and change wording,
// statistics labels, dates and the overview-stats fallback.
import type { OverviewStats, Role, UserStatistics } from '../api/users';

export const USERS_PAGE_SIZE = 10;
export const CREATE_USER_PASSWORD_MIN = 8;
export const ADMIN_CHANGE_PASSWORD_MIN = 6;
export const USER_ROLES: readonly Role[] = ['ADMIN', 'MODERATOR', 'USER', 'GUEST'];

/** Levels on the user screens (not the route guard's): ADMIN 4, MODERATOR 3, USER 2, GUEST 1. */
export const USER_SCREEN_ROLE_LEVELS: Record<Role, number> = { ADMIN: 4, MODERATOR: 3, USER: 2, GUEST: 1 };

export type RoleChangeKind = 'upgrade' | 'downgrade' | 'none';

export function roleChangeKind(from: Role, to: Role): RoleChangeKind {
  const a = USER_SCREEN_ROLE_LEVELS[from];
  const b = USER_SCREEN_ROLE_LEVELS[to];
  return b > a ? 'upgrade' : b < a ? 'downgrade' : 'none';
}

/** The sentence the role dialog shows for a change. */
export function roleChangeText(from: Role, to: Role): string {
  const kind = roleChangeKind(from, to);
  if (kind === 'upgrade') return `This is an upgrade from ${from} to ${to}.`;
  if (kind === 'downgrade') return `This is a downgrade from ${from} to ${to}.`;
  return `The user already has the role ${to}.`;
}

export type LoginFrequency = 'High' | 'Medium' | 'Low';

export function loginFrequency(totalLogins: number): LoginFrequency {
  if (totalLogins > 100) return 'High';
  if (totalLogins > 20) return 'Medium';
  return 'Low';
}

export function systemUsage(stats: {
  companiesManaged: number;
  approvalsCreated: number;
}): 'Active' | 'Moderate' {
  return stats.companiesManaged > 5 || stats.approvalsCreated > 50 ? 'Active' : 'Moderate';
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UserFormValues {
  email: string;
  password: string;
  /** Asked when one changes one's own e-mail address. */
  currentPassword: string;
  firstName: string;
  lastName: string;
  role: Role;
  isActive: boolean;
}

export type UserFormErrors = Partial<Record<'email' | 'password' | 'currentPassword', string>>;

/** Create (with password) and edit (without) validation; `needsCurrent`: one's own address changes. */
export function validateUserForm(
  values: UserFormValues,
  mode: 'create' | 'edit',
  needsCurrent = false,
): UserFormErrors {
  const errors: UserFormErrors = {};
  if (!EMAIL_RE.test(values.email.trim())) errors.email = 'Please enter a valid email address';
  if (mode === 'create' && values.password.length < CREATE_USER_PASSWORD_MIN)
    errors.password = `Password must be at least ${CREATE_USER_PASSWORD_MIN} characters`;
  if (needsCurrent && !values.currentPassword)
    errors.currentPassword = 'Enter your current password to change your email';
  return errors;
}

/** Whether an edit changes the address (as the server compares: trimmed, lower-cased). */
export function changesEmail(initial: string, next: string) {
  return initial.trim().toLowerCase() !== next.trim().toLowerCase();
}

export type PasswordErrors = Partial<Record<'currentPassword' | 'newPassword' | 'confirmPassword', string>>;

/**
 * Another user's password (6+, the admin dialog's rule), or one's own (the current one, and 8+ as
 * on create: the server's rule for a change of one's own password).
 */
export function validatePasswordChange(
  newPassword: string,
  confirmPassword: string,
  own?: { currentPassword: string },
): PasswordErrors {
  const errors: PasswordErrors = {};
  const min = own ? CREATE_USER_PASSWORD_MIN : ADMIN_CHANGE_PASSWORD_MIN;
  if (own && !own.currentPassword) errors.currentPassword = 'Current password is required';
  if (!newPassword) errors.newPassword = 'Please enter a new password';
  else if (newPassword.length < min) errors.newPassword = `Password must be at least ${min} characters long`;
  if (newPassword && confirmPassword !== newPassword) errors.confirmPassword = 'Passwords do not match';
  return errors;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'Jan 05, 2024' (local date); 'Invalid date' when it cannot be parsed. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return 'Invalid date';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return 'Invalid date';
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')}, ${d.getFullYear()}`;
}

/** Date and local time, e.g. 'Jan 05, 2024 14:03'. */
export function formatDateTime(value: string | null | undefined): string {
  const date = formatDate(value);
  if (date === 'Invalid date' || !value) return date;
  const d = new Date(value);
  return `${date} ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export function fullName(user: { firstName: string | null; lastName: string | null }): string {
  return [user.firstName, user.lastName].filter((p) => p?.trim()).join(' ');
}

/** Shown when the overview-stats call fails. */
export const DEFAULT_OVERVIEW_STATS: OverviewStats = {
  totalUsers: 1247,
  activeUsers: 1089,
  newUsersThisMonth: 89,
  usersByRole: { ADMIN: 5, MODERATOR: 23, USER: 1156, GUEST: 63 },
};

export const ZERO_USER_STATISTICS: UserStatistics = {
  totalLogins: 0,
  lastLogin: null,
  companiesManaged: 0,
  approvalsCreated: 0,
};
