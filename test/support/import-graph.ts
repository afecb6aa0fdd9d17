// The import graph of a source tree, and the checks the server's and the web's structure tests run
// on it: import cycles (type-only imports count: they tie files together for the reader and for tsc
// alike) and files over a line limit. Pure: a graph is built from file names and a reader, so each
// check also runs on a planted violation held in memory.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ImportGraph {
  files: string[];
  /** Per file, the files it imports (relative specifiers that resolve to a known file). */
  edges: Map<string, string[]>;
  lines: Map<string, number>;
}

/** Every file under `dir`, leaving out node_modules and dist. */
export function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'dist') return [];
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Every relative import or export specifier of a source: `import`, `import type`, `export … from`, `import()`. */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) if (m[1].startsWith('.')) out.push(m[1]);
  return out;
}

/** The known file a specifier names: the server writes `.js` for a `.ts` file, the web no extension. */
export function resolveSpecifier(from: string, spec: string, known: Set<string>): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const candidates = base.endsWith('.js')
    ? [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base]
    : [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** The graph of `files` (posix paths, relative to one root), each read with `read`. */
export function buildGraph(read: (file: string) => string, files: string[]): ImportGraph {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const lines = new Map<string, number>();
  for (const file of files) {
    const text = read(file);
    lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    const targets = specifiers(text)
      .map((s) => resolveSpecifier(file, s, known))
      .filter((t): t is string => t !== null);
    edges.set(file, [...new Set(targets)]);
  }
  return { files, edges, lines };
}

/** One cycle per strongly connected component of more than one file (or a file importing itself). */
export function cycles(g: ImportGraph): string[][] {
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

/** The files over `max` lines, with their length. */
export function oversize(g: ImportGraph, max: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [file, n] of g.lines) if (n > max) out[file] = n;
  return out;
}
