// The subset of QuickBooks' query language the app uses: SELECT * | count(*) FROM Entity
// [WHERE a op v AND …] [ORDERBY field [ASC|DESC]] [STARTPOSITION n] [MAXRESULTS m], with the
// operators =, <, >, <=, >=, IN (…), LIKE ('%' wildcards). No OR, joins or projections, as Intuit.
export interface Query {
  count: boolean;
  entity: string;
  where: Array<{ field: string; op: string; value: unknown }>;
  orderBy: { field: string; desc: boolean } | null;
  start: number;
  max: number;
}

export class QueryError extends Error {}

// A string is quoted with apostrophes; a backslash escapes the next character (`'Dave\'s'`), as Intuit
// documents (blogs.intuit.com/2014/03/20/advanced-sql-queries, "Escape Character"). A doubled
// apostrophe is not an escape (Intuit does not document one): `'O''Brien'` is two strings, a parse error.
const TOKEN = /\s*('(?:[^'\\]|\\.)*'|\(|\)|,|<=|>=|<>|!=|=|<|>|[A-Za-z0-9_.*%\-:+]+)/y;

function tokenize(q: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < q.length) {
    const m = TOKEN.exec(q);
    if (!m) break;
    out.push(m[1]);
  }
  if (TOKEN.lastIndex < q.trimEnd().length)
    throw new QueryError(`Error parsing query near: ${q.slice(TOKEN.lastIndex, TOKEN.lastIndex + 20)}`);
  return out;
}

function literal(t: string): unknown {
  if (t.startsWith("'")) return t.slice(1, -1).replace(/\\(.)/gs, '$1');
  if (/^(true|false)$/i.test(t)) return t.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return t;
}

export function parseQuery(q: string): Query {
  const t = tokenize(q.trim());
  let i = 0;
  const peek = () => t[i]?.toLowerCase();
  const take = (word?: string) => {
    const v = t[i++];
    if (v === undefined || (word && v.toLowerCase() !== word))
      throw new QueryError(`Error parsing query: expected ${word ?? 'a value'}`);
    return v;
  };
  take('select');
  let count = false;
  if (peek() === '*') take();
  else if (peek() === 'count') {
    take();
    take('(');
    take('*');
    take(')');
    count = true;
  } else throw new QueryError('Error parsing query: only * and count(*) can be selected');
  take('from');
  const entity = take();
  const where: Query['where'] = [];
  let orderBy: Query['orderBy'] = null;
  let start = 1;
  let max = 100;
  while (i < t.length) {
    const w = peek();
    if (w === 'where' || w === 'and') {
      take();
      const field = take();
      let op = take().toLowerCase();
      if (op === 'in') {
        take('(');
        const values: unknown[] = [];
        while (peek() !== ')') {
          values.push(literal(take()));
          if (peek() === ',') take();
          else if (peek() !== ')') throw new QueryError(`Error parsing query near: ${t[i] ?? 'the end'}`);
        }
        take(')');
        where.push({ field, op: 'in', value: values });
        continue;
      }
      if (op === 'or') throw new QueryError('Error parsing query: OR is not supported');
      if (!['=', '<', '>', '<=', '>=', 'like', '!=', '<>'].includes(op))
        throw new QueryError(`Error parsing query: operator ${op}`);
      if (op === '<>') op = '!=';
      where.push({ field, op, value: literal(take()) });
    } else if (w === 'or') throw new QueryError('Error parsing query: OR is not supported');
    else if (w === 'orderby' || w === 'order') {
      take();
      if (peek() === 'by') take();
      const field = take();
      let desc = false;
      if (peek() === 'desc' || peek() === 'asc') desc = take().toLowerCase() === 'desc';
      orderBy = { field, desc };
    } else if (w === 'startposition') {
      take();
      start = Math.max(1, Number(take()));
    } else if (w === 'maxresults') {
      take();
      max = Number(take());
      if (!Number.isInteger(max) || max < 1 || max > 1000)
        throw new QueryError('MAXRESULTS must be between 1 and 1000');
    } else throw new QueryError(`Error parsing query near: ${t[i]}`);
  }
  return { count, entity, where, orderBy, start, max };
}

/** A dotted field of an entity, case-insensitive; arrays match if any element does (AttachableRef). */
function values(obj: unknown, path: string[]): unknown[] {
  if (path.length === 0) return [obj];
  if (Array.isArray(obj)) return obj.flatMap((x) => values(x, path));
  if (!obj || typeof obj !== 'object') return [];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === path[0].toLowerCase());
  if (key === undefined) return [];
  const v = (obj as Record<string, unknown>)[key];
  // A reference compares by its value: VendorRef = '46'.
  if (path.length === 1 && v && typeof v === 'object' && !Array.isArray(v) && 'value' in v)
    return [(v as { value: unknown }).value];
  return values(v, path.slice(1));
}

function matches(v: unknown, op: string, want: unknown): boolean {
  const a = typeof v === 'string' && typeof want === 'number' ? Number(v) : v;
  const b = typeof want === 'string' && typeof v === 'number' ? Number(want) : want;
  switch (op) {
    case '=':
      return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
    case '!=':
      return a !== b;
    case '<':
      return (a as number) < (b as number);
    case '>':
      return (a as number) > (b as number);
    case '<=':
      return (a as number) <= (b as number);
    case '>=':
      return (a as number) >= (b as number);
    case 'like': {
      const re = new RegExp(
        `^${String(b)
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/%/g, '.*')}$`,
        'i',
      );
      return re.test(String(a));
    }
    case 'in':
      return (b as unknown[]).some((x) => matches(a, '=', x));
    default:
      return false;
  }
}

export function runQuery<T>(q: Query, rows: T[]): { rows: T[]; total: number } {
  let out = rows.filter((r) =>
    q.where.every((w) => values(r, w.field.split('.')).some((v) => matches(v, w.op, w.value))),
  );
  if (q.orderBy) {
    const { field, desc } = q.orderBy;
    out = [...out].sort((x, y) => {
      const a = values(x, field.split('.'))[0] as string | number;
      const b = values(y, field.split('.'))[0] as string | number;
      return (a < b ? -1 : a > b ? 1 : 0) * (desc ? -1 : 1);
    });
  }
  return { rows: out.slice(q.start - 1, q.start - 1 + q.max), total: out.length };
}

/**
 * The entities with an Active flag (name lists): Intuit's `select * from Vendor` answers the active
 * rows only ("retrieves all active customers": blogs.intuit.com/2014/03/20/advanced-sql-queries), and
 * a deleted vendor is an inactive one; `where Active IN (true,false)` sees both (minimul/qbo_api#111).
 */
const WITH_ACTIVE = new Set(['account', 'vendor', 'customer', 'employee', 'item', 'class', 'term']);

/** The query as Intuit runs it: active rows only when it says nothing of Active (count(*) too). */
export function withActiveDefault(q: Query): Query {
  if (!WITH_ACTIVE.has(q.entity.toLowerCase())) return q;
  if (q.where.some((w) => w.field.toLowerCase() === 'active')) return q;
  return { ...q, where: [...q.where, { field: 'Active', op: '=', value: true }] };
}
