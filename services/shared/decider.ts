// What every aggregate's decider is: its state from nothing, how an event changes it, the events a
// command makes of it, and the stream it lives on. Written by each module (services/<module>/, one
// decider per file, declared `satisfies Decider<…>`), run by the command handler
// (services/app/command-handler.ts).
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
