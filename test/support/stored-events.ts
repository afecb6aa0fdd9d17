// Events as the store gives them back, for pure tests of what reads the log (history, folds): each
// made with the next log position, at the instant given.
import { randomUUID } from 'node:crypto';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';

export function storedEvents(at: string) {
  let pos = 0;
  return (
    streamId: string,
    event: { type: string; data: unknown },
    metadata: Record<string, unknown> = {},
    erased?: string[],
  ): StoredEvent => {
    pos += 10;
    return {
      id: randomUUID(),
      type: event.type,
      schemaVersion: schemaVersionOf(event.type),
      streamId,
      streamVersion: 1,
      position: String(pos).padStart(8, '0'),
      data: event.data,
      metadata,
      createdAt: new Date(at),
      ...(erased ? { erased } : {}),
    };
  };
}
