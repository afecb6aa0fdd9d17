// `npm run schema:print`: writes schema/schema.graphql from the code (committed; a test fails when stale).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printedSchema } from './schema.js';

const target = path.resolve(import.meta.dirname, '../../../schema/schema.graphql');
writeFileSync(target, printedSchema());
process.stdout.write(`wrote ${target}\n`);
