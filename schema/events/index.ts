// Registry of every event type: its current schema version, its zod schema, and upcasters that
// lift an older stored version to the current one before the data is parsed.
import type { z } from 'zod';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { userEvents } from './user.js';

export interface EventDefinition {
  version: number;
  schema: z.ZodType;
  /** upcasters[v] turns data of version v into version v + 1 */
  upcasters?: Record<number, (data: any) => unknown>;
}

export const eventRegistry: Record<string, EventDefinition> = { ...userEvents };

export class UnknownEventError extends Error {}

/** Upcasts and validates a stored event's data to the current version of its type. */
export function decodeEvent<T = unknown>(event: StoredEvent): { type: string; data: T } {
  const def = eventRegistry[event.type];
  if (!def) throw new UnknownEventError(`Unknown event type ${event.type}`);
  let data: unknown = event.data;
  for (let v = event.schemaVersion; v < def.version; v++) {
    const up = def.upcasters?.[v];
    if (!up) throw new Error(`No upcaster for ${event.type} v${v}`);
    data = up(data);
  }
  return { type: event.type, data: def.schema.parse(data) as T };
}

export function schemaVersionOf(type: string): number {
  const def = eventRegistry[type];
  if (!def) throw new UnknownEventError(`Unknown event type ${type}`);
  return def.version;
}
