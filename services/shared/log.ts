// The structured logger (pino, JSON lines on stderr) of the non-HTTP parts; Fastify has its own.
// Lines keep the shape they had: level as a word, ISO time, the base fields, msg.
import pino from 'pino';

/** What every part logs through (pino here, a test's recorder in tests). */
export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** Where lines go: stderr, written synchronously so nothing is lost when the process exits. */
export function createLogger(
  level: string,
  base: Record<string, unknown> = {},
  destination: pino.DestinationStream = pino.destination({ dest: 2, sync: true }),
): Logger {
  const logger = pino(
    {
      level,
      base,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    info: (obj, msg) => logger.info(obj, msg),
    warn: (obj, msg) => logger.warn(obj, msg),
    error: (obj, msg) => logger.error(obj, msg),
  };
}
