// The floor under the latency figure: the product's hops with none of its code. `node
// bench/floor-roles.mjs gateway|projector` (env DATABASE_URL, REDIS_URL, FLOOR_PREFIX).
//   gateway:   POST /cmd → one durable INSERT + pg_notify (one statement, synchronous commit) → 200;
//              Redis `<prefix>:changes` → every WebSocket client.
//   projector: LISTEN → read the new rows → one statement writing them and moving a checkpoint
//              (asynchronous commit, as the product's consumers) → Redis PUBLISH.
// bench/floor.ts drives it like bench/latency.ts drives the product. It is a lower bound, not a
// design: it reads by id with no horizon, so a row committed out of id order can be skipped (a
// marker or two in 3,000 at 300/s), which the product's log must never do.
import http from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { WebSocketServer } from 'ws';

const role = process.argv[2];
const prefix = process.env.FLOOR_PREFIX ?? 'floor';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, idleTimeoutMillis: 300_000 });

if (role === 'gateway') {
  const sub = new Redis(process.env.REDIS_URL);
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      const { marker } = JSON.parse(body);
      await pool.query(
        `WITH i AS (INSERT INTO floor_events(marker) VALUES ($1) RETURNING id)
         SELECT pg_notify('floor', (SELECT id::text FROM i))`,
        [marker],
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  const wss = new WebSocketServer({ server });
  await sub.subscribe(`${prefix}:changes`);
  sub.on('message', (_channel, message) => {
    for (const ws of wss.clients) ws.send(message);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
  });
} else {
  const redis = new Redis(process.env.REDIS_URL);
  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  const writer = new pg.Client({
    connectionString: process.env.DATABASE_URL,
    options: '-c synchronous_commit=off',
  });
  await writer.connect();
  let last = 0;
  let running = false;
  let again = false;
  const drain = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    do {
      again = false;
      const r = await pool.query('SELECT id, marker FROM floor_events WHERE id > $1 ORDER BY id', [last]);
      if (r.rows.length === 0) continue;
      const ids = r.rows.map((row) => Number(row.id));
      const markers = r.rows.map((row) => row.marker);
      await writer.query(
        `WITH w AS (INSERT INTO floor_rows(id, marker) SELECT * FROM unnest($1::bigint[], $2::text[])
                    ON CONFLICT (id) DO UPDATE SET marker = excluded.marker)
         UPDATE floor_checkpoint SET position = $3`,
        [ids, markers, ids[ids.length - 1]],
      );
      last = ids[ids.length - 1];
      void redis.publish(`${prefix}:changes`, JSON.stringify(markers));
    } while (again);
    running = false;
  };
  listener.on('notification', () => {
    void drain();
  });
  await listener.query('LISTEN floor');
  process.stdout.write('projector running\n');
}
