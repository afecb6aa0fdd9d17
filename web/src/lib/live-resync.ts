// After the subscription socket reconnects, changes made during the gap were never pushed (Redis
// pub/sub does not replay). Screens that show live data listen here and re-read what they show.
type Listener = () => void;
const listeners = new Set<Listener>();

export const liveResync = {
  /** Called by the socket client when a connection succeeds after a retry. */
  emit() {
    for (const l of [...listeners]) l();
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
};
