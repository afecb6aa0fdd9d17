// Shapes of the REST API (spec 1 §3, §7): the envelope every call answers with, and the user.

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

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export interface ApiEnvelope<T = unknown> {
  success: boolean;
  data?: T;
  error?: string | { message?: string };
  message?: string;
  errors?: FieldError[] | string[];
  meta?: { pagination?: Pagination };
}
