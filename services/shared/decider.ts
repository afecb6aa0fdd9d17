// What every aggregate's decider is: its state from nothing, how an event changes it, the events a
// command makes of it, and the stream it lives on. Written by each module (services/<module>/, one
// decider per file, declared `satisfies Decider<…>`), run by the command handler
// (services/app/command-handler.ts).
import type { z } from 'zod';
import {
  decodeEvent,
  type EncodedEvent,
  type EventDefinition,
  UnknownEventError,
} from '../../schema/shared/events.js';

export interface Decider<S, C, E extends { type: string; data: unknown }> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
  /**
   * The stream of one instance, from its key (an id; none for a stream of its own kind, such as a
   * uniqueness claim's). Each decider takes its own key, so the parameters are left open here.
   */
  streamId(...key: never[]): string;
}

/** The event union a module's definitions describe: each type with its schema's inferred data. */
export type EventOf<Defs extends Record<string, EventDefinition>> = {
  [K in keyof Defs & string]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs & string];

/**
 * A decoder for one module's events (or several modules' merged): decodeEvent upcasts the data and
 * checks it against its type's registered schema, so what comes back is that union with typed data.
 * Deciders, projections and reactions switch on `event.type` over it; the one cast is here. A type
 * outside `definitions` is refused (a handles list out of step with the module's events).
 */
export function eventDecoder<Defs extends Record<string, EventDefinition>>(definitions: Defs) {
  return (stored: EncodedEvent, options?: { sealed?: 'refused' | 'absent' }): EventOf<Defs> => {
    if (!Object.hasOwn(definitions, stored.type))
      throw new UnknownEventError(`${stored.type} is not among the events this reader decodes`);
    return decodeEvent(stored, options) as EventOf<Defs>;
  };
}
