// The server's floors (docs/ARCHITECTURE.md), checked on the import graph: an import goes to its own
// floor or below, a module's files (services, projections, workers; the modules from the registry)
// do not import another module's, nothing imports in a
// cycle (type-only imports count: they tie files together for the reader and for tsc alike), and no
// source file is over 500 lines. Pure and fast: it reads the files and follows relative specifiers
// (test/support/import-graph.ts, shared with the web's structure test).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGraph, cycles, type ImportGraph, oversize, walk } from '../test/support/import-graph.js';
import { modules } from './modules/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOP_DIRS = ['schema', 'services', 'projections', 'workers', 'tools', 'bench', 'test'];

/** The modules' folders, from the registry: one each under services/, projections/, workers/, schema/. */
const MODULES = (modules as ReadonlyArray<{ folder?: string }>).flatMap((m) => (m.folder ? [m.folder] : []));
/** Where a module's files live; schema/<module> is how others use it (its events and answers). */
const MODULE_TOPS = ['services', 'projections', 'workers'];

/**
 * Files over 500 lines, until they are split by module concern. Each entry is the
 * file's size when it was listed; the test fails when a listed file is 500 lines or fewer (take it
 * off the list) or gone, so the list only shrinks.
 */
const OVERSIZE_UNTIL_SPLIT: Record<string, number> = {};

const MAX_LINES = 500;

/** The floors, bottom (0) to top. Same floor or below: allowed. */
function floorOf(file: string): { floor: number; name: string } {
  const [top, second] = file.split('/');
  if (top === 'schema')
    return second === 'shared' ? { floor: 0, name: 'schema/shared' } : { floor: 1, name: 'schema' };
  if (top === 'services') {
    if (second === 'shared') return { floor: 2, name: 'services/shared' };
    if (['eventstore', 'consumers', 'privacy', 'auth', 'quickbooks', 'mail', 'nacha'].includes(second))
      return { floor: 3, name: 'platform' };
    if (second === 'app') return { floor: 5, name: 'services/app' };
    // A module's transports (its REST routes and GraphQL types) sit on the gateway's floor, in its folder.
    if (MODULES.includes(second))
      return file.split('/')[2] === 'api'
        ? { floor: 8, name: 'services/<module>/api' }
        : { floor: 6, name: 'services/<module>' };
    return { floor: 8, name: 'top' }; // gateway, modules, main.ts
  }
  if (top === 'projections') return { floor: 4, name: 'projections' };
  if (top === 'workers') return { floor: 7, name: 'workers' };
  return { floor: 8, name: 'top' }; // tools, bench, test support
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function upwardImports(g: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of g.edges) {
    for (const to of targets) {
      const a = floorOf(from);
      const b = floorOf(to);
      if (b.floor > a.floor) out.push(`${from} (${a.name}) -> ${to} (${b.name})`);
    }
  }
  return out;
}

/**
 * A module's files (services/, projections/, workers/) importing another module's: a module uses
 * another through its events and answers in schema/, or through a port (services/app), never its files.
 */
function crossModuleImports(g: ImportGraph, modules = MODULES): string[] {
  const moduleOf = (f: string) => {
    const [top, second] = f.split('/');
    return MODULE_TOPS.includes(top) && modules.includes(second) ? second : null;
  };
  const out: string[] = [];
  for (const [from, targets] of g.edges) {
    const own = moduleOf(from);
    if (!own) continue;
    for (const to of targets) {
      const other = moduleOf(to);
      if (other && other !== own) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/**
 * A module's declaration (services/modules/<name>.ts) importing a file outside the module's own
 * folders: every file of module X sits under a folder named X. What every module uses (schema/shared,
 * services/app, the platform, the worker runtime) is allowed; the gateway's files and another
 * module's folders are not.
 */
function misplacedModuleFiles(
  g: ImportGraph,
  registry: ReadonlyArray<{ name: string; folder?: string }>,
  folders = MODULES,
): string[] {
  const out: string[] = [];
  for (const m of registry) {
    const declaration = `services/modules/${m.name}.ts`;
    for (const to of g.edges.get(declaration) ?? []) {
      const [top, second] = to.split('/');
      if (top === 'services' && second === 'modules') continue;
      const ownFolder = m.folder !== undefined && second === m.folder;
      const otherModule = folders.includes(second) && !ownFolder;
      if (otherModule || (top === 'services' && second === 'gateway')) out.push(`${declaration} -> ${to}`);
    }
  }
  return out;
}

/** Feature folders of web/src/features that are not a module's folder (nor the sign-in's, `auth`). */
function strayFeatures(features: string[], folders = MODULES): string[] {
  return features.filter((f) => f !== 'auth' && !folders.includes(f));
}

const sources = TOP_DIRS.flatMap((d) => walk(path.join(ROOT, d)))
  .map((f) => path.relative(ROOT, f).split(path.sep).join('/'))
  .filter((f) => /\.(ts|tsx|mts)$/.test(f) && !isTest(f) && !f.endsWith('.d.ts'));
const graph = buildGraph((f) => readFileSync(path.join(ROOT, f), 'utf8'), sources);

describe('server layout', () => {
  it('reads the sources it checks', () => {
    expect(sources.length).toBeGreaterThan(150);
    expect(sources).toContain('services/shared/db.ts');
  });

  it('imports only from the same floor or below', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('knows the modules from the registry', () => {
    expect(MODULES).toEqual(expect.arrayContaining(['approvals', 'vendors', 'companies', 'users']));
  });

  it("keeps a module's files (services, projections, workers) from importing another module's", () => {
    expect(crossModuleImports(graph)).toEqual([]);
  });

  it('keeps every file of a module under a folder named after it (from the registry)', () => {
    expect(misplacedModuleFiles(graph, modules)).toEqual([]);
    const features = readdirSync(path.join(ROOT, 'web/src/features'));
    expect(features.length).toBeGreaterThan(4);
    expect(strayFeatures(features)).toEqual([]);
  });

  it('has no import cycle (type-only imports included)', () => {
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const over = oversize(graph, MAX_LINES);
    expect(Object.keys(over).filter((f) => !(f in OVERSIZE_UNTIL_SPLIT))).toEqual([]);
    // The allow-list is not stale: every file on it still exists and is still over the limit.
    const stale = Object.keys(OVERSIZE_UNTIL_SPLIT).filter((f) => !(f in over));
    expect(stale).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const g = buildGraph(
    (f) =>
      ({
        'services/shared/log.ts': "import type { AppServices } from '../app/context.js';\n",
        'services/app/context.ts': "import { x } from '../approvals/a.js';\n",
        'services/approvals/a.ts': "export { y } from '../vendors/b.js';\n",
        'services/vendors/b.ts': "const m = await import('../approvals/a.js');\n",
        'workers/vendors/job.ts': "import { refresh } from '../../services/approvals/a.js';\n",
        'services/dashboard/d.ts': "import { held } from '../../projections/approvals/p.js';\n",
        'projections/approvals/p.ts': "import type { E } from '../../schema/vendors/events.js';\n",
        'schema/vendors/events.ts': 'export type E = 1;\n',
        'services/gateway/graphql/types/approval.ts': 'export {};\n',
        'services/modules/approval.ts':
          "import '../gateway/graphql/types/approval.js';\nimport '../vendors/b.js';\nimport '../approvals/a.js';\n",
      })[f]!,
    [
      'services/shared/log.ts',
      'services/app/context.ts',
      'services/approvals/a.ts',
      'services/vendors/b.ts',
      'workers/vendors/job.ts',
      'services/dashboard/d.ts',
      'projections/approvals/p.ts',
      'schema/vendors/events.ts',
      'services/gateway/graphql/types/approval.ts',
      'services/modules/approval.ts',
    ],
  );

  it("finds a module's file outside its folders, and a web feature that is no module's", () => {
    expect(
      misplacedModuleFiles(g, [{ name: 'approval', folder: 'approvals' }], ['approvals', 'vendors']),
    ).toEqual([
      'services/modules/approval.ts -> services/gateway/graphql/types/approval.ts',
      'services/modules/approval.ts -> services/vendors/b.ts',
    ]);
    expect(strayFeatures(['approvals', 'auth', 'direct-action'], ['approvals'])).toEqual(['direct-action']);
  });

  it('finds an upward import, a type-only one included', () => {
    expect(upwardImports(g)).toEqual([
      'services/shared/log.ts (services/shared) -> services/app/context.ts (services/app)',
      'services/app/context.ts (services/app) -> services/approvals/a.ts (services/<module>)',
    ]);
  });

  it(`finds a file over ${MAX_LINES} lines`, () => {
    const long = buildGraph(() => 'export const x = 1;\n'.repeat(MAX_LINES + 1), ['services/shared/long.ts']);
    expect(oversize(long, MAX_LINES)).toEqual({ 'services/shared/long.ts': MAX_LINES + 1 });
  });

  it('finds a module importing another, from workers and projections too, and the cycle they make', () => {
    // Another module's events in schema/ are its public side: not a violation.
    expect(crossModuleImports(g, ['approvals', 'vendors', 'dashboard'])).toEqual([
      'services/approvals/a.ts -> services/vendors/b.ts',
      'services/vendors/b.ts -> services/approvals/a.ts',
      'workers/vendors/job.ts -> services/approvals/a.ts',
      'services/dashboard/d.ts -> projections/approvals/p.ts',
    ]);
    expect(cycles(g)).toEqual([
      ['services/approvals/a.ts', 'services/vendors/b.ts', 'services/approvals/a.ts'],
    ]);
  });
});
