// What every aggregate's decider is: its state from nothing, how an event changes it, and the events a
// command makes of it. Written by each module (services/<module>/), run by the command handler
// (services/app/command-handler.ts).
export interface Decider<S, C, E extends { type: string; data: unknown }> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}
