// Builds the schema once, after every module has imported its type files (each registers itself
// on the builder when imported: services/modules/<name>.ts).
import { lexicographicSortSchema, printSchema } from 'graphql';
import { commandEndpoints, graphqlInputs } from '../../modules/index.js';
import { builder } from './builder.js';
import { registerCommandMutations, registerGraphQLInputs } from './command-mutations.js';

// The declared commands' mutations (services/app/endpoints.ts), after every type they name.
registerGraphQLInputs(graphqlInputs);
registerCommandMutations(commandEndpoints);

export const schema = builder.toSchema();

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
