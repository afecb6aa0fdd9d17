// schema/schema.graphql is committed (the web's typed documents read it): it must match the code.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { printedSchema } from './schema.js';

it('schema/schema.graphql is up to date (run `npm run schema:print`)', () => {
  const committed = readFileSync(path.resolve(import.meta.dirname, '../../../schema/schema.graphql'), 'utf8');
  expect(committed).toBe(printedSchema());
});
