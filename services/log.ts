// A small structured logger (JSON lines on stderr) for the non-HTTP parts; Fastify has its own.
import type { Logger } from './app/context.js';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  const min = LEVELS.indexOf(level as (typeof LEVELS)[number]);
  const write = (lvl: (typeof LEVELS)[number], obj: unknown, msg?: string) => {
    if (LEVELS.indexOf(lvl) < min) return;
    const fields =
      obj instanceof Error ? { err: { message: obj.message, stack: obj.stack } } : (obj as object);
    process.stderr.write(
      `${JSON.stringify({ level: lvl, time: new Date().toISOString(), ...base, ...fields, msg })}\n`,
    );
  };
  return {
    info: (o, m) => write('info', o, m),
    warn: (o, m) => write('warn', o, m),
    error: (o, m) => write('error', o, m),
  };
}
