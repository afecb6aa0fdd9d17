// The Node (V8) flags every Billflow process runs with: the Dockerfile's CMD, `npm start` and the
// bench's processes pass these, and production-build.int.test.ts fails when one of them drifts.
//
// A young generation of 64 MB a semi-space instead of V8's 16 MB: a burst of commands in flight (a
// CSV import keeps 1,000 at once) has more live short-lived objects than 16 MB holds, so scavenges
// copied them again and again and promoted them to the old generation, whose mark-compacts then
// cost the gateway 23 % of its CPU during an import. Alternating runs of the import (10,000 rows):
// 2.78 – 3.51 s with it against 3.35 – 4.53 s without, the gateway's CPU 2,770 – 3,190 ms against
// 3,420 – 4,280 ms (docs/PERFORMANCE.md). The heap's young part grows to this size only when a
// burst needs it.
export const NODE_FLAGS = ['--max-semi-space-size=64'] as const;
