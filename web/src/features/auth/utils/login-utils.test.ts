import { describe, expect, it } from 'vitest';
import { resolveReturnPath } from './return-path';
import { validateLogin } from './validate-login';

describe('validateLogin', () => {
  it('asks for a valid e-mail address and a 6-character password', () => {
    expect(validateLogin({ email: '', password: '' })).toEqual({
      email: 'Please enter a valid email address',
      password: 'Password must be at least 6 characters',
    });
    expect(validateLogin({ email: 'not-an-email', password: '12345' })).toEqual({
      email: 'Please enter a valid email address',
      password: 'Password must be at least 6 characters',
    });
    expect(validateLogin({ email: 'a@b', password: '123456' }).email).toBe(
      'Please enter a valid email address',
    );
    expect(validateLogin({ email: ' ada@billflow.test ', password: '123456' })).toEqual({});
  });
});

describe('resolveReturnPath', () => {
  it('prefers the returnUrl query parameter', () => {
    expect(resolveReturnPath('?returnUrl=%2Fusers%2F3', { from: { pathname: '/companies' } })).toBe(
      '/users/3',
    );
  });
  it('then the page the user came from, with its query and hash', () => {
    expect(resolveReturnPath('', { from: { pathname: '/companies', search: '?page=2', hash: '#x' } })).toBe(
      '/companies?page=2#x',
    );
    expect(resolveReturnPath('', { from: '/vendors' })).toBe('/vendors');
  });
  it('then /dashboard', () => {
    expect(resolveReturnPath('', null)).toBe('/dashboard');
    expect(resolveReturnPath('', { from: { pathname: '/login' } })).toBe('/dashboard');
  });
  it('never leaves the app', () => {
    expect(resolveReturnPath('?returnUrl=https://evil.example', null)).toBe('/dashboard');
    expect(resolveReturnPath('?returnUrl=//evil.example/x', null)).toBe('/dashboard');
    expect(resolveReturnPath('?returnUrl=/login', null)).toBe('/dashboard');
  });
});
