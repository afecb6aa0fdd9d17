// Where a successful sign-in goes: the returnUrl query parameter, else the page the user came from,
// else /dashboard. Only paths of this app are followed, never another site.

export const DEFAULT_AFTER_LOGIN = '/dashboard';

function isLocalPath(value: unknown): value is string {
  return (
    typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
  );
}

function isLoginPath(path: string) {
  return (
    path === '/login' ||
    path.startsWith('/login?') ||
    path.startsWith('/login#') ||
    path.startsWith('/login/')
  );
}

interface FromLocation {
  pathname?: unknown;
  search?: unknown;
  hash?: unknown;
}

export function resolveReturnPath(search: string, state: unknown): string {
  const returnUrl = new URLSearchParams(search).get('returnUrl');
  if (returnUrl && isLocalPath(returnUrl) && !isLoginPath(returnUrl)) return returnUrl;

  const from = state && typeof state === 'object' ? (state as { from?: unknown }).from : undefined;
  let fromPath: string | undefined;
  if (typeof from === 'string') fromPath = from;
  else if (from && typeof from === 'object') {
    const f = from as FromLocation;
    if (typeof f.pathname === 'string') {
      fromPath = `${f.pathname}${typeof f.search === 'string' ? f.search : ''}${typeof f.hash === 'string' ? f.hash : ''}`;
    }
  }
  if (fromPath && isLocalPath(fromPath) && !isLoginPath(fromPath)) return fromPath;
  return DEFAULT_AFTER_LOGIN;
}
