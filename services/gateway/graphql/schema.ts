// Imports every type file (each registers itself on the builder) and builds the schema once.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/user.js';
import './types/auth.js';
import './types/health.js';
import './types/dashboard.js';
import './types/operations.js';

export const schema = builder.toSchema();

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
