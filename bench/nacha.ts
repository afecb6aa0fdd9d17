import { fileURLToPath } from 'node:url';
import { parseAchFile } from '../services/nacha/parser.js';
import { routingCheckDigit } from '../services/nacha/records.js';
import { validateAchFile } from '../services/nacha/validator.js';
import { type AchFileInput, writeAchFile } from '../services/nacha/writer.js';
import { fmt, type PartResult, partProcess } from './common.js';

const WRITE_TARGET_MS = 100;
const PARSE_TARGET_MS = 500;

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

function median(run: () => void): { median: number; runs: number[] } {
  run();
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    run();
    runs.push(performance.now() - t0);
  }
  return { median: [...runs].sort((a, b) => a - b)[1], runs };
}

function measure(): PartResult {
  const small = input(10_000);
  const write = median(() => {
    const issues = validateAchFile(writeAchFile(small));
    if (issues.length > 0) throw new Error(`the bench's file has issues: ${issues[0].message}`);
  });
  const bigText = writeAchFile(input(100_000));
  const parse = median(() => {
    const issues = validateAchFile(parseAchFile(bigText));
    if (issues.length > 0) throw new Error(`the bench's file has issues: ${issues[0].message}`);
  });
  const runs = (r: { runs: number[] }) => r.runs.map((ms) => fmt(ms, 1)).join(' · ');
  return {
    rows: [
      {
        figure: 'NACHA: write + validate a 10,000-entry file (median of 3)',
        value: `${fmt(write.median, 1)} ms (${runs(write)})`,
        target: `≤ ${WRITE_TARGET_MS} ms`,
        met: write.median <= WRITE_TARGET_MS,
      },
      {
        figure: `NACHA: parse + validate a 100,000-entry file, ${fmt(bigText.length / 1e6, 1)} MB (median of 3)`,
        value: `${fmt(parse.median, 1)} ms (${runs(parse)})`,
        target: `≤ ${PARSE_TARGET_MS} ms`,
        met: parse.median <= PARSE_TARGET_MS,
      },
    ],
    data: { nacha: { writeValidate10k: write, parseValidate100k: parse, bytes100k: bigText.length } },
  };
}

/** The part for run.ts: this file in a process of its own. */
export const nachaPart = (): Promise<PartResult> => partProcess('nacha', fileURLToPath(import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = measure();
  for (const r of result.rows) process.stderr.write(`${r.figure}: ${r.value} (target ${r.target})\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
