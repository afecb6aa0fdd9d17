// One part of the bench in its own process (run.ts starts it with `--part=name`): runs it and prints
// its rows and data as one JSON line, the last of its output.
import { ensureLocalServices, withDatabase } from '../tools/local-services.js';
import type { PartContext, PartResult, Row } from './common.js';
import { floorPart, latencyPart } from './report-latency.js';
import { approvalsPart, vendorsPart } from './report-modules.js';
import { appendPart, replayPart } from './report-store.js';
import { webPart } from './report-web.js';

const PART_RUNS: Record<string, (p: PartContext) => Promise<Record<string, unknown>>> = {
  append: appendPart,
  replay: replayPart,
  vendors: vendorsPart,
  approvals: approvalsPart,
  latency: latencyPart,
  floor: floorPart,
  web: webPart,
};

export async function runOnePart(part: string) {
  process.env.BILLFLOW_QUIET = '1';
  const services = await ensureLocalServices();
  const admin = withDatabase(services.databaseUrl, 'postgres');
  const rows: Row[] = [];
  const data = (await PART_RUNS[part]?.({ admin, services, rows })) ?? {};
  await services.stop();
  const result: PartResult = {
    rows,
    data: Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)),
  };
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}
