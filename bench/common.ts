// What the bench's driver (run.ts) and its parts share: the table's rows, a part's result, the
// number format, a fresh database per part, and the checkpoint that flushes the parts before.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from '../tools/local-services.js';
import { settle } from './settle.js';

export interface Row {
  figure: string;
  value: string;
  target: string;
  met: boolean | null;
}

/** The figures of one part, as its process prints them on its last line. */
export interface PartResult {
  rows: Row[];
  data: Record<string, unknown>;
}

/** What a part is given in its own process: the admin database, the services, the rows it adds to. */
export interface PartContext {
  admin: string;
  services: { databaseUrl: string; redisUrl: string };
  rows: Row[];
}

/** `--quick`: fewer and shorter runs, to see the bench work rather than to measure. */
export const quick = process.argv.includes('--quick');

/** Dirty pages of the parts before flushed now, not during the next part's measured runs. */
export const checkpoint = (adminUrl: string) => settle(adminUrl, []);

export async function freshDatabase(adminUrl: string, label: string) {
  const name = `bf_bench_${label}_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      const d = new pg.Client({ connectionString: adminUrl });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A child process run to its end, its stdout gathered (its stderr shown as it comes). */
export function captureProcess(
  argv: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...argv], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/**
 * A part's file run in a process of its own (its own heap: no other part's garbage in its figures),
 * `node [flags] --import tsx <file> [args]`; its last line on stdout is the part's result.
 */
export async function partProcess(
  name: string,
  file: string,
  {
    args = [],
    flags = [],
    env,
  }: { args?: readonly string[]; flags?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<PartResult> {
  const { code, out } = await captureProcess([...flags, '--import', 'tsx', file, ...args], { env });
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{')) throw new Error(`bench part ${name} failed (exit ${code})`);
  return JSON.parse(last) as PartResult;
}
