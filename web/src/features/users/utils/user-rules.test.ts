import { describe, expect, it } from 'vitest';
import {
  changesEmail,
  DEFAULT_OVERVIEW_STATS,
  formatDate,
  loginFrequency,
  roleChangeKind,
  roleChangeText,
  systemUsage,
  validatePasswordChange,
  validateUserForm,
} from './user-rules';

const form = {
  email: 'a@b.co',
  password: 'longenough',
  currentPassword: '',
  firstName: '',
  lastName: '',
  role: 'USER' as const,
  isActive: true,
};

describe('role change wording (levels ADMIN 4, MODERATOR 3, USER 2, GUEST 1)', () => {
  it('calls a higher level an upgrade and a lower one a downgrade', () => {
    expect(roleChangeKind('GUEST', 'USER')).toBe('upgrade');
    expect(roleChangeKind('USER', 'MODERATOR')).toBe('upgrade');
    expect(roleChangeKind('MODERATOR', 'ADMIN')).toBe('upgrade');
    expect(roleChangeKind('ADMIN', 'GUEST')).toBe('downgrade');
    expect(roleChangeKind('MODERATOR', 'USER')).toBe('downgrade');
    expect(roleChangeKind('USER', 'USER')).toBe('none');
    expect(roleChangeText('USER', 'ADMIN')).toBe('This is an upgrade from USER to ADMIN.');
    expect(roleChangeText('MODERATOR', 'GUEST')).toBe('This is a downgrade from MODERATOR to GUEST.');
  });
});

describe('statistics labels', () => {
  it('login frequency: >100 High, >20 Medium, else Low', () => {
    expect(loginFrequency(101)).toBe('High');
    expect(loginFrequency(100)).toBe('Medium');
    expect(loginFrequency(21)).toBe('Medium');
    expect(loginFrequency(20)).toBe('Low');
    expect(loginFrequency(0)).toBe('Low');
  });
  it("system usage: 'Active' past 5 companies or 50 approvals, else 'Moderate'", () => {
    expect(systemUsage({ companiesManaged: 6, approvalsCreated: 0 })).toBe('Active');
    expect(systemUsage({ companiesManaged: 0, approvalsCreated: 51 })).toBe('Active');
    expect(systemUsage({ companiesManaged: 5, approvalsCreated: 50 })).toBe('Moderate');
  });
});

describe('user form validation', () => {
  it('needs a valid email and, when creating, a password of 8+', () => {
    expect(validateUserForm(form, 'create')).toEqual({});
    expect(validateUserForm({ ...form, email: 'nope', password: '1234567' }, 'create')).toEqual({
      email: 'Please enter a valid email address',
      password: 'Password must be at least 8 characters',
    });
  });
  it('ignores the password when editing', () => {
    expect(validateUserForm({ ...form, password: '' }, 'edit')).toEqual({});
    expect(validateUserForm({ ...form, email: ' ' }, 'edit')).toEqual({
      email: 'Please enter a valid email address',
    });
  });
  it("asks for the current password when one's own address changes", () => {
    expect(validateUserForm(form, 'edit', true)).toEqual({
      currentPassword: 'Enter your current password to change your email',
    });
    expect(validateUserForm({ ...form, currentPassword: 'secret' }, 'edit', true)).toEqual({});
    expect(changesEmail('A@b.co', ' a@B.co ')).toBe(false);
    expect(changesEmail('a@b.co', 'c@b.co')).toBe(true);
  });
});

describe('change password validation', () => {
  it('gives the spec messages in order', () => {
    expect(validatePasswordChange('', '')).toEqual({ newPassword: 'Please enter a new password' });
    expect(validatePasswordChange('12345', '12345')).toEqual({
      newPassword: 'Password must be at least 6 characters long',
    });
    expect(validatePasswordChange('123456', '654321')).toEqual({ confirmPassword: 'Passwords do not match' });
    expect(validatePasswordChange('123456', '123456')).toEqual({});
  });
  it('on one’s own account: the current password, and 8+ for the new one', () => {
    expect(validatePasswordChange('1234567', '1234567', { currentPassword: '' })).toEqual({
      currentPassword: 'Current password is required',
      newPassword: 'Password must be at least 8 characters long',
    });
    expect(validatePasswordChange('12345678', '12345678', { currentPassword: 'old' })).toEqual({});
  });
});

describe('dates and fallbacks', () => {
  it("formats like 'Jan 05, 2024' and shows 'Invalid date' otherwise", () => {
    expect(formatDate('2024-01-05T12:00:00')).toBe('Jan 05, 2024');
    expect(formatDate('not a date')).toBe('Invalid date');
    expect(formatDate(null)).toBe('Invalid date');
  });
  it('has the sample overview numbers', () => {
    expect(DEFAULT_OVERVIEW_STATS).toEqual({
      totalUsers: 1247,
      activeUsers: 1089,
      newUsersThisMonth: 89,
      usersByRole: { ADMIN: 5, MODERATOR: 23, USER: 1156, GUEST: 63 },
    });
  });
});
