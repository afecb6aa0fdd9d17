// How stale each read model is, for Prometheus: the age of the oldest committed event a projection
// has not applied yet (0 when it is caught up). Computed at scrape time from the checkpoints and the
// event store port, so it holds for either adapter and whichever process runs the projector.
// Also the events each consumer parked (poison events), read at scrape time too.
import { Gauge, type Registry } from 'prom-client';
import type { AppServices } from '../app/context.js';
import { parkedCounts } from '../consumers/parked.js';
import { type ConsumerPosition, consumerPositions } from '../operations/operations.js';

export function registerProjectionMetrics(registry: Registry, app: AppServices) {
  new Gauge({
    name: 'billflow_projection_lag_seconds',
    help: 'Age of the oldest committed event the projection has not applied yet; 0 when caught up',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      this.reset();
      let positions: ConsumerPosition[];
      try {
        // The same figures the operations page shows (services/operations/operations.ts).
        positions = await consumerPositions(app);
      } catch {
        return; // the database is away: the scrape still answers, without this gauge
      }
      for (const { name, lagSeconds } of positions) this.set({ projection: name }, lagSeconds);
    },
  });
  new Gauge({
    name: 'billflow_parked_events',
    help: 'Events a projection or process manager (pm:<name>) parked after repeated failures; retry them from the operations page',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        // Every consumer with a checkpoint shows, at 0 when it parked nothing, so alerts see it.
        const names = await app.pool.query<{ name: string }>('SELECT name FROM projection_checkpoints');
        const counts = await parkedCounts(app.db);
        for (const { name } of names.rows) this.set({ consumer: name }, counts[name] ?? 0);
        for (const [consumer, n] of Object.entries(counts)) this.set({ consumer }, n);
      } catch {
        // no runner has created the tables yet, or the database is away: no figure rather than a wrong one
      }
    },
  });
}
