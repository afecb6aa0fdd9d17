// `BENCH_QCOUNT=1 npm run bench -- --only=latency`: each product process counts the statements it
// sends to Postgres (by text) and writes them, most frequent first, to .local/qcount-<role>-<pid>.json
// when it exits. Round trips are what a command costs on this VM (about 100 µs of client CPU each,
// and as much in Postgres), so this is the first thing to read when the CPU per command moves.
import fs from 'node:fs';
import pg from 'pg';

const counts = new Map();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, values, callback) {
  const text = typeof config === 'string' ? config : (config?.text ?? config?.name ?? String(config));
  const key = String(text).replace(/\s+/g, ' ').slice(0, 140);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return query.call(this, config, values, callback);
};
process.on('exit', () => {
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  fs.writeFileSync(
    `${import.meta.dirname}/../.local/qcount-${process.env.ROLE ?? 'process'}-${process.pid}.json`,
    JSON.stringify(sorted, null, 1),
  );
});
