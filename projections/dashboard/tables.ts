// The dashboard module's read-model tables as kysely sees them (projections/database.ts composes them into
// the read-model database).
export interface ActivityTable {
  id: string;
  position: string;
  type: string;
  /** The line as shown: `template` with the names in it. */
  description: string;
  /** The line with `{actor}` and `{subject}` for the names, kept to render it again once a name is erased. */
  template: string;
  /** Names as they were when the line was written; null once that person was forgotten. */
  actor_name: string | null;
  subject_name: string | null;
  actor_id: number | null;
  /** 'user' or 'company' (an approval's line has its company for subject). */
  subject_type: string;
  subject_id: string;
  /** The company the line is about (null for a user's line): the staff scope and a company's feed. */
  company_id: number | null;
  /** user | company | quickbooks | approval: who may read the line (services/dashboard/activity.ts). */
  kind: string;
  occurred_at: Date;
}

export interface ActivityPeopleTable {
  user_id: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

/** Companies' names as of now, for the lines written next (a company's name is not personal data). */
export interface ActivityCompaniesTable {
  company_id: number;
  name: string;
}

/** The tables this read model owns, as Kysely types them. */
export interface ActivityTables {
  activity: ActivityTable;
  activity_people: ActivityPeopleTable;
  activity_companies: ActivityCompaniesTable;
}
