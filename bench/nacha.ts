// The NACHA library alone: write + validate a 10,000-entry file, parse + validate a 100,000-entry one,
// each judged against a floor measured in turn with it in the same process: what the host charges
// for the plainest code doing the same amount of text (fixed-width lines joined; the text split into
// lines). A figure in milliseconds judged the host's minute as much as the code.
import { fileURLToPath } from 'node:url';
import { parseAchFile } from '../services/nacha/parser.js';
import { routingCheckDigit } from '../services/nacha/records.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { type AchFileInput, writeAchFile } from '../services/nacha/writer.js';
import { fmt, type PartResult, partProcess } from './common.js';

/**
 * The targets as ratios to the floors. The absolute ones were 100 ms and 0.5 s on the project's VM, where
 * the figures measured 28.9 and 122.8 ms on a quiet host (2026-11-28); measured in turn with their
 * floors there (2026-12-06, seven runs, medians), they were 3.6× and 32× the floors. The same
 * margins: 100 / 28.9 × 3.6 ≈ 12× and 500 / 122.8 × 32 ≈ 130× (docs/PERFORMANCE.md).
 */
const WRITE_TARGET_RATIO = 12;
const PARSE_TARGET_RATIO = 130;

/** A file of `entries` credits in batches of 1,000, every fifth with an addenda. */
function input(entries: number): AchFileInput {
  const batches: AchFileInput['batches'] = [];
  for (let b = 0; b * 1000 < entries; b++) {
    const list: AchFileInput['batches'][number]['entries'] = [];
    for (let i = b * 1000; i < Math.min(entries, (b + 1) * 1000); i++) {
      const first8 = String(10_000_000 + ((i * 7919) % 89_999_999));
      list.push({
        transactionCode: i % 3 === 0 ? 32 : 22,
        routingNumber: first8 + routingCheckDigit(first8),
        accountNumber: String(100_000 + i),
        amountCents: 1 + ((i * 104_729) % 5_000_000),
        identificationNumber: `V${i}`,
        individualName: `Vendor number ${i}`,
        addenda: i % 5 === 0 ? `BILLS ${i},${i + 1}` : undefined,
      });
    }
    batches.push({
      serviceClassCode: 220,
      standardEntryClassCode: 'CCD',
      companyName: 'Acme Supplies',
      companyIdentification: '1123456789',
      companyEntryDescription: 'VENDOR PAY',
      effectiveEntryDate: '260706',
      odfiIdentification: '23138010',
      entries: list,
    });
  }
  return {
    immediateDestination: '231380104',
    immediateOrigin: '1123456789',
    fileCreationDate: '260702',
    fileCreationTime: '1405',
    fileIdModifier: 'A',
    immediateDestinationName: 'Federal Reserve Bank',
    immediateOriginName: 'Acme Supplies',
    batches,
  };
}

/**
 * The plainest writing of the same entries: each one's 94-character line (and its addenda's) from
 * template strings and padding, joined. No checks, no controls, no blocking: the floor under writing.
 */
function plainLines(file: AchFileInput): string {
  const lines: string[] = [];
  let trace = 0;
  for (const batch of file.batches)
    for (const e of batch.entries) {
      trace++;
      lines.push(
        `6${e.transactionCode}${e.routingNumber}${e.accountNumber.padEnd(17)}${String(e.amountCents).padStart(10, '0')}${(e.identificationNumber ?? '').padEnd(15)}${e.individualName.toUpperCase().padEnd(22).slice(0, 22)}  ${e.addenda ? 1 : 0}${batch.odfiIdentification}${String(trace).padStart(7, '0')}`,
      );
      if (e.addenda)
        lines.push(`705${e.addenda.toUpperCase().padEnd(80)}0001${String(trace).padStart(7, '0')}`);
    }
  return lines.join('\n');
}

interface Timed {
  median: number;
  runs: number[];
}

/**
 * The figure and its floor in turn, one untimed round of each and then `rounds` timed, each round
 * the floor, the figure and the floor again: the figure over the mean of the floors around it, so
 * that both see the same phase of the host. A floor much shorter than its figure is run as many
 * times over as makes it about as long (its time divided by them), so that both meet the host's
 * interruptions alike (a 5 ms split was seldom interrupted while a 160 ms parse was). Each one's
 * median, and the median of the rounds' ratios.
 */
function inTurn(figure: () => void, floor: () => void, rounds = 5) {
  const time = (run: () => void, times = 1) => {
    const t0 = performance.now();
    for (let i = 0; i < times; i++) run();
    return (performance.now() - t0) / times;
  };
  const over = Math.max(1, Math.round(time(figure) / time(floor)));
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const before = time(floor, over);
    a.push(time(figure));
    const after = time(floor, over);
    b.push((before + after) / 2);
    ratios.push(a[i] / b[i]);
  }
  const median = (runs: number[]) => [...runs].sort((x, y) => x - y)[Math.floor(runs.length / 2)];
  const timed = (runs: number[]): Timed => ({ median: median(runs), runs });
  return { figure: timed(a), floor: timed(b), ratio: median(ratios), floorRepeats: over };
}

/** Keeps a result alive, so that the floor's work is not optimised away. */
let sink = 0;

function measure(): PartResult {
  const small = input(10_000);
  const write = inTurn(
    () => {
      const issues = validateAchFile(writeAchFile(small));
      if (issues.length > 0) throw new Error(`the bench's file has issues: ${issues[0].message}`);
    },
    () => {
      sink += plainLines(small).length;
    },
  );
  const bigText = writeAchFile(input(100_000));
  const parse = inTurn(
    () => {
      const issues = validateAchFile(parseAchFile(bigText));
      if (issues.length > 0) throw new Error(`the bench's file has issues: ${issues[0].message}`);
    },
    () => {
      sink += bigText.split('\n').length;
    },
  );
  const runs = (r: Timed) => r.runs.map((ms) => fmt(ms, 1)).join(' · ');
  const ms = (r: Timed) => `${fmt(r.median, 1)} ms (${runs(r)})`;
  return {
    rows: [
      {
        figure: `NACHA: write + validate a 10,000-entry file ÷ its floor, the same entries' lines plainly formatted and joined, in turn (medians of 5 rounds): ${ms(write.figure)} ÷ ${ms(write.floor)}`,
        value: `${fmt(write.ratio, 1)}×`,
        target: `≤ ${fmt(WRITE_TARGET_RATIO, 0)}×`,
        met: write.ratio <= WRITE_TARGET_RATIO,
      },
      {
        figure: `NACHA: parse + validate a 100,000-entry file, ${fmt(bigText.length / 1e6, 1)} MB ÷ its floor, the same text split into lines, in turn (medians of 5 rounds): ${ms(parse.figure)} ÷ ${ms(parse.floor)}`,
        value: `${fmt(parse.ratio, 1)}×`,
        target: `≤ ${fmt(PARSE_TARGET_RATIO, 0)}×`,
        met: parse.ratio <= PARSE_TARGET_RATIO,
      },
    ],
    data: {
      nacha: {
        writeValidate10k: write.figure,
        writeFloor: write.floor,
        writeRatio: write.ratio,
        writeFloorRepeats: write.floorRepeats,
        parseValidate100k: parse.figure,
        parseFloor: parse.floor,
        parseRatio: parse.ratio,
        parseFloorRepeats: parse.floorRepeats,
        bytes100k: bigText.length,
        sink,
      },
    },
  };
}

/** The part for run.ts: this file in a process of its own. */
export const nachaPart = (): Promise<PartResult> => partProcess('nacha', fileURLToPath(import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = measure();
  for (const r of result.rows) process.stderr.write(`${r.figure}: ${r.value} (target ${r.target})\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
