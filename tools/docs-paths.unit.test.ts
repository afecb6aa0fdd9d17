// The docs are a map: every file or folder they name, and every link between them, must exist, so
// a move or a split that forgets the docs fails here instead of sending a reader to nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const TOP = /^(services|projections|workers|schema|web|tools|bench|test|e2e|docs)\//;

const docs = [
  'README.md',
  'docs/ARCHITECTURE.md',
  'docs/OPERATIONS.md',
  'docs/PERFORMANCE.md',
  ...readdirSync(path.join(ROOT, 'docs/decisions')).map((f) => `docs/decisions/${f}`),
].filter((f) => f.endsWith('.md'));

/** Repository paths in `code` spans; placeholders (`<module>`, `{a,b}`, `*`) are patterns, not paths. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1].replace(/[:#].*$/, '').replace(/[.,;)]+$/, ''))
    .filter((p) => TOP.test(p) && !/[<>{}*]/.test(p));
}

/** Relative markdown links, resolved from the document's folder. */
function links(doc: string, text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].replace(/#.*$/, ''))
    .filter((l) => l && !/^[a-z]+:/i.test(l))
    .map((l) => path.join(path.dirname(doc), l));
}

describe('the docs name what exists', () => {
  for (const doc of docs) {
    it(doc, () => {
      const text = readFileSync(path.join(ROOT, doc), 'utf8');
      const missing = [...namedPaths(text), ...links(doc, text)].filter(
        (p) => !existsSync(path.join(ROOT, p)),
      );
      expect(missing).toEqual([]);
    });
  }

  it('catches a path that does not exist', () => {
    expect(namedPaths('see `services/nowhere/file.ts` and `services/<module>/`')).toEqual([
      'services/nowhere/file.ts',
    ]);
    expect(links('docs/X.md', '[a](decisions/0001-staff-scope.md) [b](https://x.y)')).toEqual([
      'docs/decisions/0001-staff-scope.md',
    ]);
  });
});
