// The read-model database as kysely sees it. pg returns int8 as string: keep ids in int4.
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { ActivityPeopleTable, ActivityTable } from '../projections/activity.js';
import type { UsersTable } from '../projections/users.js';
import type { RefreshTokensTable } from './auth/refresh-tokens.js';

export interface Database {
  users: UsersTable;
  activity: ActivityTable;
  activity_people: ActivityPeopleTable;
  auth_refresh_tokens: RefreshTokensTable;
  projection_checkpoints: { name: string; position: string; version: number; updated_at: Date };
}

export function createDb(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
