import { describe, expect, it } from 'vitest';
import { ApiError, buildErrorMessage, LOGIN_MESSAGES, loginErrorMessage } from './errors';

describe('buildErrorMessage: errors, message, error.message, error, then the fallback', () => {
  it('prefers the field errors', () => {
    const body = {
      errors: [
        { field: 'email', message: 'Email is invalid' },
        { field: 'password', message: 'Too short' },
      ],
      message: 'Validation failed',
      error: 'Bad',
    };
    expect(buildErrorMessage(body)).toBe('Email is invalid, Too short');
    expect(buildErrorMessage({ errors: ['One', 'Two'] })).toBe('One, Two');
  });
  it('then message, then error.message, then error', () => {
    expect(buildErrorMessage({ errors: [], message: 'M', error: 'E' })).toBe('M');
    expect(buildErrorMessage({ error: { message: 'Nested' } })).toBe('Nested');
    expect(buildErrorMessage({ error: 'Plain' })).toBe('Plain');
  });
  it('falls back to the caller’s text or to "An error occurred"', () => {
    expect(buildErrorMessage({})).toBe('An error occurred');
    expect(buildErrorMessage(null, 'Failed to fetch companies')).toBe('Failed to fetch companies');
    expect(buildErrorMessage({ message: '  ' }, 'Failed to fetch companies')).toBe(
      'Failed to fetch companies',
    );
  });
});

describe('loginErrorMessage', () => {
  const http = (status: number, body: object = {}) =>
    new ApiError('x', { status, body: { success: false, ...body } });
  it('maps the statuses of the spec', () => {
    expect(loginErrorMessage(http(401, { error: 'Invalid email or password' }))).toBe(
      'Invalid email or password. Please check your credentials and try again.',
    );
    expect(loginErrorMessage(http(429))).toBe(
      'Too many login attempts. Please wait a few minutes before trying again.',
    );
    expect(loginErrorMessage(http(500))).toBe('Server error occurred. Please try again later.');
    expect(loginErrorMessage(http(503))).toBe('Server error occurred. Please try again later.');
  });
  it('says the server could not be reached when no response came', () => {
    expect(loginErrorMessage(new ApiError('Failed to fetch', { kind: 'network' }))).toBe(
      'Unable to connect to the server. Please check your internet connection and try again.',
    );
    expect(loginErrorMessage(new ApiError('timed out', { kind: 'timeout' }))).toBe(LOGIN_MESSAGES.noResponse);
  });
  it('otherwise shows the server’s error, or the fallback', () => {
    expect(loginErrorMessage(http(403, { success: false, error: 'Account is deactivated' }))).toBe(
      'Account is deactivated',
    );
    expect(loginErrorMessage(http(400, {}))).toBe('Login failed. Please try again.');
    expect(loginErrorMessage(new Error('Login failed'))).toBe('Login failed');
    expect(loginErrorMessage(http(200, {}))).toBe('Login failed');
    expect(loginErrorMessage(undefined)).toBe('Login failed. Please try again.');
  });
});
