// The words an approval's history is written in: people read it, so a status is named as the
// screens' badges name it and a count reads as a count of things. The codes stay in the events (the
// audit export and the time travel show them as stored).

/** Words that stay in capitals inside a code: NACHA is an acronym. */
const ACRONYMS: Record<string, string> = { nacha: 'NACHA' };

/**
 * A code as the status and priority badges say it (web: approval-rules.ts titleCase): each word
 * capitalised, 'NACHA_GENERATED' → 'NACHA Generated', 'PARTIAL_SUCCESS' → 'Partial Success'.
 */
export function codeLabel(code: string): string {
  return code
    .toLowerCase()
    .split('_')
    .map((w) => ACRONYMS[w] ?? w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** The NACHA file's processing status as the NACHA card's badge says it. */
const NACHA_STATUS: Record<string, string> = {
  REQUESTED: 'Generating',
  GENERATED: 'Generated',
  FAILED: 'Needs attention',
};
export const nachaStatusLabel = (status: string) => NACHA_STATUS[status] ?? codeLabel(status);

/** '1 bill', '2 bills'; `many` for a plural that is not the word plus s ('entries'). */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
