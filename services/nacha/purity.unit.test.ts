// The NACHA library is pure: no node: module, no import leaving services/nacha, no clock or random
// source inside (times come in as arguments). Its only package is the federal holiday list.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = path.dirname(fileURLToPath(import.meta.url));
const PACKAGES = ['@18f/us-federal-holidays'];
const sources = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('services/nacha', () => {
  it('has its sources', () => {
    expect(sources).toEqual(
      expect.arrayContaining([
        'records.ts',
        'writer.ts',
        'parser.ts',
        'validator.ts',
        'payment-file.ts',
        'banking-day.ts',
      ]),
    );
  });

  it.each(sources)('%s imports only its neighbours and the holiday list, and reads no clock', (file) => {
    const text = readFileSync(path.join(DIR, file), 'utf8');
    const specifiers = [
      ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g),
    ].map((m) => m[1]);
    for (const s of specifiers) {
      if (s.startsWith('.')) expect(s, `${file} imports ${s}`).toMatch(/^\.\/[^/]+\.js$/);
      else expect(PACKAGES, `${file} imports ${s}`).toContain(s);
    }
    expect(text).not.toMatch(
      /\bDate\.now\(|new Date\(\)|Math\.random\(|\bprocess\.|\bglobalThis\b|\bfetch\(/,
    );
  });
});
