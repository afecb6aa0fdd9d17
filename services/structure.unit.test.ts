// The server's floors (docs/ARCHITECTURE.md), checked on the import graph: an import goes to its own
// floor or below, a module's services folder does not import another module's, nothing imports in a
// cycle (type-only imports count: they tie files together for the reader and for tsc alike), and no
// source file is over 500 lines. Pure and fast: it reads the files and follows relative specifiers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOP_DIRS = ['schema', 'services', 'projections', 'workers', 'tools', 'bench', 'test'];

/** The modules: one folder each under services/ (and projections/, workers/, schema/). */
const MODULES = ['approvals', 'companies', 'vendors', 'managers', 'users', 'dashboard', 'operations'];

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
    if (MODULES.includes(second)) return { floor: 6, name: 'services/<module>' };
    return { floor: 8, name: 'top' }; // gateway, modules, main.ts
  }
  if (top === 'projections') return { floor: 4, name: 'projections' };
  if (top === 'workers') return { floor: 7, name: 'workers' };
  return { floor: 8, name: 'top' }; // tools, bench, test support
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'dist') return [];
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Every relative import or export specifier of a source: `import`, `import type`, `export … from`, `import()`. */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) if (m[1].startsWith('.')) out.push(m[1]);
  return out;
}

function resolve(from: string, spec: string, known: Set<string>): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const candidates = base.endsWith('.js')
    ? [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base]
    : [base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => known.has(c)) ?? null;
}

interface Graph {
  files: string[];
  edges: Map<string, string[]>;
  lines: Map<string, number>;
}

/** The import graph of the server's non-test sources (paths relative to the repository). */
function buildGraph(read: (file: string) => string, files: string[]): Graph {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const lines = new Map<string, number>();
  for (const file of files) {
    const text = read(file);
    lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    const targets = specifiers(text)
      .map((s) => resolve(file, s, known))
      .filter((t): t is string => t !== null);
    edges.set(file, [...new Set(targets)]);
  }
  return { files, edges, lines };
}

function upwardImports(g: Graph): string[] {
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

function crossModuleImports(g: Graph): string[] {
  const moduleOf = (f: string) => {
    const [top, second] = f.split('/');
    return top === 'services' && MODULES.includes(second) ? second : null;
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

/** One cycle per strongly connected component of more than one file (or a file importing itself). */
function cycles(g: Graph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (g.edges.get(v) ?? []).includes(v)) components.push(c);
    }
  };
  for (const f of g.files) if (!idx.has(f)) strong(f);
  // A path back to the start inside each component: the cycle a reader can follow.
  return components.map((c) => {
    const inside = new Set(c);
    const start = [...c].sort()[0];
    const prev = new Map<string, string>();
    const queue = [start];
    const seen = new Set([start]);
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of g.edges.get(v) ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(prev.get(path[0])!);
          return [...path, start];
        }
        if (!seen.has(w)) {
          seen.add(w);
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return c;
  });
}

function oversize(g: Graph): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [file, n] of g.lines) if (n > MAX_LINES) out[file] = n;
  return out;
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

  it("keeps a module's services folder from importing another module's", () => {
    expect(crossModuleImports(graph)).toEqual([]);
  });

  it('has no import cycle (type-only imports included)', () => {
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it(`keeps every source file at ${MAX_LINES} lines or fewer`, () => {
    const over = oversize(graph);
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
      })[f]!,
    ['services/shared/log.ts', 'services/app/context.ts', 'services/approvals/a.ts', 'services/vendors/b.ts'],
  );

  it('finds an upward import, a type-only one included', () => {
    expect(upwardImports(g)).toEqual([
      'services/shared/log.ts (services/shared) -> services/app/context.ts (services/app)',
      'services/app/context.ts (services/app) -> services/approvals/a.ts (services/<module>)',
    ]);
  });

  it('finds a module importing another, and the cycle they make', () => {
    expect(crossModuleImports(g)).toEqual([
      'services/approvals/a.ts -> services/vendors/b.ts',
      'services/vendors/b.ts -> services/approvals/a.ts',
    ]);
    expect(cycles(g)).toEqual([
      ['services/approvals/a.ts', 'services/vendors/b.ts', 'services/approvals/a.ts'],
    ]);
  });
});
