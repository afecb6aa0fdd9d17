// The layout rules of the web app, checked on the import graph of web/src like the server's floors
// (services/structure.unit.test.ts, the same graph and checks: test/support/import-graph.ts):
// kebab-case file names; no feature imports another feature, and shared code (components/, lib/,
// hooks/, types/, testing/) imports no feature: only app/ (the router, the shell) puts features
// together; nothing imports in a cycle (type-only imports count); no source file is over 500 lines.
// Each check also runs on a planted violation, so a check that finds nothing is seen to be able to.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGraph, cycles, type ImportGraph, oversize, walk } from '../../test/support/import-graph';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const MAX_LINES = 500;

/**
 * Files over 500 lines, until they are split. Each entry is the file's size when it was listed; the
 * test fails when a listed file is 500 lines or fewer (take it off the list) or gone, so the list
 * only shrinks.
 */
const OVERSIZE_UNTIL_SPLIT: Record<string, number> = {};

/** The folders every feature may use, which import no feature themselves. */
const SHARED = ['components', 'lib', 'hooks', 'types', 'testing'];

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** `features/<name>/…` → name; null outside features/. */
const featureOf = (file: string) => {
  const [top, name] = file.split('/');
  return top === 'features' && name && file.split('/').length > 2 ? name : null;
};

function badNames(files: string[]): string[] {
  return files
    .map((f) => path.posix.basename(f))
    .filter((name) => !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/.test(name));
}

function crossFeatureImports(g: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of g.edges) {
    const own = featureOf(from);
    if (!own) continue;
    for (const to of targets) {
      const other = featureOf(to);
      if (other && other !== own) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

function sharedImportingFeatures(g: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of g.edges) {
    if (!SHARED.includes(from.split('/')[0])) continue;
    for (const to of targets) if (featureOf(to)) out.push(`${from} -> ${to}`);
  }
  return out;
}

// Paths relative to web/src, posix. Tests are in the graph (a test must not reach into another
// feature either); the line limit is for the sources.
const files = walk(SRC)
  .map((f) => path.relative(SRC, f).split(path.sep).join('/'))
  .filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith('.d.ts'));
const graph = buildGraph((f) => readFileSync(path.join(SRC, f), 'utf8'), files);

describe('web/src layout', () => {
  it('reads the sources it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('app/router.tsx');
    // The graph follows the web's extension-less specifiers: the router reaches the features.
    expect(graph.edges.get('app/router.tsx')?.some((t) => featureOf(t))).toBe(true);
  });

  it('names files in kebab-case', () => {
    expect(badNames(files)).toEqual([]);
  });

  it('keeps features from importing one another', () => {
    expect(crossFeatureImports(graph)).toEqual([]);
  });

  it(`keeps shared code (${SHARED.join(', ')}) free of feature imports`, () => {
    expect(sharedImportingFeatures(graph)).toEqual([]);
  });

  it('has no import cycle (type-only imports included)', () => {
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const over = oversize(graph, MAX_LINES);
    for (const f of Object.keys(over)) if (isTest(f)) delete over[f];
    expect(Object.keys(over).filter((f) => !(f in OVERSIZE_UNTIL_SPLIT))).toEqual([]);
    // The allow-list is not stale: every file on it still exists and is still over the limit.
    expect(Object.keys(OVERSIZE_UNTIL_SPLIT).filter((f) => !(f in over))).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const planted: Record<string, string> = {
    'features/vendors/api/vendors.ts': "import type { Approval } from '../../approvals/api/approvals';\n",
    'features/approvals/api/approvals.ts': "export { VendorRow } from '../../vendors/api/vendors';\n",
    'features/approvals/components/page.tsx': "import { Button } from '../../../components/ui/button';\n",
    'components/ui/button.tsx': "const m = import('../../features/approvals/components/page');\n",
    'lib/long.ts': 'export const x = 1;\n'.repeat(MAX_LINES + 1),
    'lib/UserCard.tsx': 'export {};\n',
  };
  const g = buildGraph((f) => planted[f]!, Object.keys(planted));

  it('finds a file name not in kebab-case', () => {
    expect(badNames(Object.keys(planted))).toEqual(['UserCard.tsx']);
  });

  it('finds a feature importing another, a type-only import and a re-export included', () => {
    expect(crossFeatureImports(g)).toEqual([
      'features/vendors/api/vendors.ts -> features/approvals/api/approvals.ts',
      'features/approvals/api/approvals.ts -> features/vendors/api/vendors.ts',
    ]);
  });

  it('finds shared code importing a feature (a lazy import included)', () => {
    expect(sharedImportingFeatures(g)).toEqual([
      'components/ui/button.tsx -> features/approvals/components/page.tsx',
    ]);
  });

  it('finds the cycles', () => {
    expect(
      cycles(g)
        .map((c) => c.join(' -> '))
        .sort(),
    ).toEqual([
      'components/ui/button.tsx -> features/approvals/components/page.tsx -> components/ui/button.tsx',
      'features/approvals/api/approvals.ts -> features/vendors/api/vendors.ts -> features/approvals/api/approvals.ts',
    ]);
  });

  it(`finds a file over ${MAX_LINES} lines`, () => {
    expect(oversize(g, MAX_LINES)).toEqual({ 'lib/long.ts': MAX_LINES + 1 });
  });
});
