// Registry of every event type: its current schema version, its zod schema, and upcasters that
// lift an older stored version to the current one before the data is parsed.
import { z } from 'zod';
import type { StoredEvent } from '../../services/eventstore/port.js';
import type { PersonalFields } from './personal.js';
import { userEvents } from './user.js';

export interface EventDefinition {
  version: number;
  schema: z.ZodType;
  /** upcasters[v] turns data of version v into version v + 1 */
  upcasters?: Record<number, (data: any) => unknown>;
  /** Personal fields, sealed with their subject's key in the log (services/privacy/personal-data.ts). */
  personal?: PersonalFields;
}

export const eventRegistry: Record<string, EventDefinition> = { ...userEvents };

export class UnknownEventError extends Error {}

export function personalFieldsOf(type: string): PersonalFields | undefined {
  return eventRegistry[type]?.personal;
}

/** Types after which a subject's data key is gone. */
export const FORGETTING_EVENTS: ReadonlySet<string> = new Set(['UserForgotten']);

/** The schema of an event whose subject was forgotten: its personal fields may be null. */
const erasedSchemas = new Map<string, z.ZodType>();
function erasedSchemaOf(type: string, def: EventDefinition): z.ZodType {
  let schema = erasedSchemas.get(type);
  if (!schema) {
    const fields = def.personal?.fields ?? [];
    schema = (def.schema as z.ZodObject).extend(Object.fromEntries(fields.map((f) => [f, z.unknown()])));
    erasedSchemas.set(type, schema);
  }
  return schema;
}

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
  const schema = event.erased ? erasedSchemaOf(event.type, def) : def.schema;
  return { type: event.type, data: schema.parse(data) as T };
}

export function schemaVersionOf(type: string): number {
  const def = eventRegistry[type];
  if (!def) throw new UnknownEventError(`Unknown event type ${type}`);
  return def.version;
}
