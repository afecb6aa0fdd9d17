// The users module's read-model tables as kysely sees them (projections/database.ts composes them into
// the read-model database).
export interface UsersTable {
  id: number;
  /** Null once the user's personal data was erased (UserForgotten). */
  email: string | null;
  email_lower: string | null;
  first_name: string | null;
  last_name: string | null;
  role: 'ADMIN' | 'MODERATOR' | 'USER' | 'GUEST';
  is_active: boolean;
  /** The current password's row in `user_credentials`: the hash itself is never in a read model. */
  credential_id: string;
  deleted_at: Date | null;
  erased_at: Date | null;
  created_at: Date;
  updated_at: Date;
  total_logins: number;
  last_login_at: Date | null;
}

/** The tables this read model owns, as Kysely types them. */
export interface UsersTables {
  users: UsersTable;
}
