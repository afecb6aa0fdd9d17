// Given/when/then for deciders (Emmett's DeciderSpecification style): given past events, when a
// command, then these new events — or this refusal.
import { expect } from 'vitest';
import type { Decider } from '../../services/app/command-handler.js';
import { DomainError, type DomainErrorCode } from '../../services/shared/domain-errors.js';

export function deciderSpec<S, C, E extends { type: string; data: unknown }>(decider: Decider<S, C, E>) {
  return {
    given(events: E[]) {
      const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
      return {
        when(command: C) {
          const run = () => decider.decide(command, state);
          return {
            // biome-ignore lint/suspicious/noThenProperty: given/when/then is the point of this helper
            then(expected: E[]) {
              expect(run()).toEqual(expected);
            },
            thenRefuses(code: DomainErrorCode, message?: string | RegExp) {
              let thrown: unknown;
              try {
                run();
              } catch (err) {
                thrown = err;
              }
              expect(thrown).toBeInstanceOf(DomainError);
              expect((thrown as DomainError).code).toBe(code);
              if (message) expect((thrown as DomainError).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
