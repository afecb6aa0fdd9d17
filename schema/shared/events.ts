// Registry of every event type: its current schema version, its zod schema, and upcasters that
// lift an older stored version to the current one before the data is parsed. Each module
// (services/modules/) registers its aggregate's events here when it loads; schema/ itself knows no
// aggregate, so adding one never touches this file.
import { z } from 'zod';
import type { PersonalFields } from './personal.js';

export interface EventDefinition {
  version: number;
  schema: z.ZodType;
  /** upcasters[v] turns data of version v into version v + 1 */
  upcasters?: Record<number, (data: any) => unknown>;
  /** Personal fields, sealed with their subject's key in the log (services/privacy/personal-data.ts). */
  personal?: PersonalFields;
}

/** What decoding needs of an event as the log gives it back (the store's StoredEvent has it). */
export interface EncodedEvent {
  type: string;
  schemaVersion: number;
  data: unknown;
  /** Personal fields that could not be opened: their subject was forgotten. */
  erased?: readonly string[];
}

export const eventRegistry: Record<string, EventDefinition> = {};

/** Types after which a subject's data key is gone (filled by registerEvents). */
const forgetting = new Set<string>();
export const FORGETTING_EVENTS: ReadonlySet<string> = forgetting;

/**
 * Adds an aggregate's events. A type registered twice with another definition is a bug (two
 * aggregates claiming one name), said at load; registering the same definitions again is a no-op.
 */
export function registerEvents(
  definitions: Record<string, EventDefinition>,
  forgettingTypes: readonly string[] = [],
): void {
  for (const [type, def] of Object.entries(definitions)) {
    const known = eventRegistry[type];
    if (known && known !== def) throw new Error(`Event type ${type} is registered twice`);
    eventRegistry[type] = def;
  }
  for (const type of forgettingTypes) {
    if (!definitions[type]) throw new Error(`Forgetting event ${type} is not among the registered events`);
    forgetting.add(type);
  }
}

export class UnknownEventError extends Error {}

function definitionOf(type: string): EventDefinition {
  const def = eventRegistry[type];
  if (def) return def;
  // An empty registry means nothing loaded the modules: say so, not "unknown type".
  if (Object.keys(eventRegistry).length === 0)
    throw new UnknownEventError(
      `Unknown event type ${type}: no events are registered (import services/modules/index.ts first)`,
    );
  throw new UnknownEventError(`Unknown event type ${type}`);
}

export function personalFieldsOf(type: string): PersonalFields | undefined {
  return eventRegistry[type]?.personal;
}

/**
 * The schema of an event whose personal fields are not there to read: null once its subject was
 * forgotten, absent while it is still sealed (decodeEvent's `sealed: 'absent'`).
 */
const erasedSchemas = new Map<string, z.ZodType>();
function erasedSchemaOf(type: string, def: EventDefinition): z.ZodType {
  let schema = erasedSchemas.get(type);
  if (!schema) {
    const fields = def.personal?.fields ?? [];
    schema = (def.schema as z.ZodObject).extend(
      Object.fromEntries(fields.map((f) => [f, z.unknown().optional()])),
    );
    erasedSchemas.set(type, schema);
  }
  return schema;
}

/** An event handed over still sealed: its personal fields are in one `pii` member (personal-data.ts). */
const isStillSealed = (data: unknown) => typeof data === 'object' && data !== null && 'pii' in data;

/**
 * Upcasts and validates a stored event's data to the current version of its type. An event still
 * sealed is refused, unless the caller reads none of its personal fields and says so with
 * `sealed: 'absent'` (Projection.readsPersonal): it then decodes with those fields absent.
 */
export function decodeEvent<T = unknown>(
  event: EncodedEvent,
  options: { sealed?: 'refused' | 'absent' } = {},
): { type: string; data: T } {
  const def = definitionOf(event.type);
  if (isStillSealed(event.data)) {
    // Upcasters may need the personal fields: an older version must come opened.
    if (options.sealed !== 'absent' || event.schemaVersion < def.version)
      throw new Error(`${event.type} came sealed: its personal fields were not opened`);
    const { pii: _, ...rest } = event.data as Record<string, unknown>;
    return { type: event.type, data: erasedSchemaOf(event.type, def).parse(rest) as T };
  }
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
  return definitionOf(type).version;
}
