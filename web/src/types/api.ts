// The REST answers the web still reads by hand. Sign-in, refresh and sign-out stay on REST (they
// give the tokens the GraphQL client sends; decision 0002), so their user and tokens are typed here,
// held to the server's by test/contracts/web-types.ts, with the envelope every REST call answers in
// (also the file transfers: CSV export and import, the invoice). Every screen on GraphQL types its
// answers from its documents (gql.tada) instead: add nothing else here.

export type Role = 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';

export interface User {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: Role;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

export interface AuthResult {
  user: User;
  tokens: Tokens;
}

export interface FieldError {
  field: string;
  message: string;
}

export interface ApiEnvelope<T = unknown> {
  success: boolean;
  data?: T;
  error?: string | { message?: string };
  message?: string;
  errors?: FieldError[] | string[];
}
