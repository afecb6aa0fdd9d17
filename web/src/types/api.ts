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

export type ManagerStatus = 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';

/** Spec 2 §3 Manager: a contact record, linked to at most one user account. */
export interface Manager {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  title: string | null;
  status: ManagerStatus;
  isActive: boolean;
  userId: number | null;
  user: { id: number; firstName: string | null; lastName: string | null; email: string; role: Role } | null;
  createdAt: string;
  updatedAt: string;
}
