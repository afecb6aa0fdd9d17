// The layout rules of the web app (bulletproof-react): kebab-case file names, and no feature
// imports another feature (shared code lives in components/, lib/, hooks/).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FEATURES = path.join(SRC, 'features');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

const sources = files(SRC).filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith('graphql-env.d.ts'));

describe('web/src layout', () => {
  it('names files in kebab-case', () => {
    const bad = sources
      .map((f) => path.basename(f))
      .filter((name) => !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/.test(name));
    expect(bad).toEqual([]);
  });

  it('keeps features from importing one another', () => {
    const offences: string[] = [];
    for (const file of sources.filter((f) => f.startsWith(FEATURES + path.sep))) {
      const own = path.relative(FEATURES, file).split(path.sep)[0];
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(FEATURES + path.sep)) continue;
        const other = path.relative(FEATURES, target).split(path.sep)[0];
        if (other !== own) offences.push(`${path.relative(SRC, file)} -> ${spec}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('keeps shared code (components, lib, hooks) free of feature imports', () => {
    const offences = sources
      .filter(
        (f) => /[/\\](components|lib|hooks)[/\\]/.test(path.relative(SRC, f)) && !f.startsWith(FEATURES),
      )
      .filter((f) => /from '(\.\.\/)+features\//.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    expect(offences).toEqual([]);
  });
});
