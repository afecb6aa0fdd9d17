// A slice of `audit verify` in a worker thread (verify.ts starts it through verify-worker-boot.mjs):
// its own connection, its slice, its result posted back.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { type Slice, verifySlice } from './verify-slice.js';

const { connection, slice } = workerData as { connection: pg.ClientConfig; slice: Slice };
const client = new pg.Client(connection);
await client.connect();
try {
  parentPort?.postMessage(await verifySlice(client, slice));
} finally {
  await client.end();
}
