// How stale each read model is, for Prometheus: the age of the oldest committed event a projection
// has not applied yet (0 when it is caught up). Computed at scrape time from the checkpoints and the
// event store port, so it holds for either adapter and whichever process runs the projector.
import { Gauge, type Registry } from 'prom-client';
import type { AppServices } from '../app/context.js';

export function registerProjectionMetrics(registry: Registry, app: AppServices) {
  new Gauge({
    name: 'billflow_projection_lag_seconds',
    help: 'Age of the oldest committed event the projection has not applied yet; 0 when caught up',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      this.reset();
      let rows: Array<{ name: string; position: string }>;
      try {
        rows = (await app.pool.query('SELECT name, position FROM projection_checkpoints')).rows;
      } catch {
        return; // no projector has started yet: nothing to report
      }
      const now = Date.now();
      for (const { name, position } of rows) {
        const [next] = await app.store.readAll(position, 1);
        this.set({ projection: name }, next ? Math.max(0, (now - next.createdAt.getTime()) / 1000) : 0);
      }
    },
  });
}
