// The managers module's read-model tables as kysely sees them (projections/database.ts composes them into
// the read-model database).
export interface ManagersTable {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  title: string | null;
  status: 'ACTIVE' | 'INACTIVE' | 'SUSPENDED';
  user_id: number | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** The tables this read model owns, as Kysely types them. */
export interface ManagersTables {
  managers: ManagersTable;
}
