// Builds the schema once, after every module has imported its type files (each registers itself
// on the builder when imported: services/modules/<name>.ts).
import { lexicographicSortSchema, printSchema } from 'graphql';
import '../../modules/index.js';
import { builder } from './builder.js';

export const schema = builder.toSchema();

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
