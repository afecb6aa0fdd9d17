// Text put into a QuickBooks query. Intuit's query language quotes strings with apostrophes and
// escapes special characters with a backslash: `DisplayName = 'Dave\'s'` (Intuit, "Advanced SQL
// Queries", https://blogs.intuit.com/2014/03/20/advanced-sql-queries, "Escape Character"). Doubling
// the apostrophe (`''`) is not Intuit's syntax. Every string a query embeds goes through qbString.

/** A string literal for a QuickBooks query: quoted, its backslashes and apostrophes escaped. */
export function qbString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A comma-separated list of string literals, for `in (…)`. */
export function qbStringList(values: readonly string[]): string {
  return values.map(qbString).join(',');
}
