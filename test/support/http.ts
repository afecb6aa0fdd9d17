// Tiny clients for the REST adapter and GraphQL over HTTP, as a browser would call them.
export interface ApiResponse<T = any> {
  status: number;
  body: {
    success: boolean;
    data?: T;
    error?: string;
    message?: string;
    code?: string;
    errors?: { field: string; message: string }[];
    meta?: any;
  };
}

export async function api<T = any>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function gql<T = any>(
  base: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string | null,
): Promise<{ status: number; data: T | null; errors?: { message: string; extensions?: any }[] }> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const json = (await res.json()) as { data: T | null; errors?: { message: string; extensions?: any }[] };
  return { status: res.status, ...json };
}

export async function signIn(base: string, email: string, password: string) {
  const r = await api<{ user: any; tokens: { accessToken: string; refreshToken: string } }>(
    base,
    'POST',
    '/api/auth/login',
    {
      body: { email, password },
    },
  );
  if (r.status !== 200) throw new Error(`sign-in of ${email} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data!;
}
