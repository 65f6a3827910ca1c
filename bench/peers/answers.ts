/**
 * The answers bench:peers compares between engines, in one normal form:
 * every engine's result for a query is turned into an `Answer` and the
 * answers must agree, or the run fails. Only what the query defines is
 * compared: a top-N by time may order passes of the same second either way,
 * and a LIMIT may cut a group of equal times at a different pass.
 */

/** A hit of a top-N list: its id and the value it is sorted by (pass time, epoch ms). */
export interface TopHit {
  readonly id: string;
  readonly key: number;
}

export type Answer =
  /** The first hits of a sort on `key` (ties in any order) and how many matched. */
  | { readonly kind: 'top'; readonly total: number; readonly hits: readonly TopHit[] }
  /** Every match in a total order (ties broken by id), so compared exactly. */
  | { readonly kind: 'list'; readonly total: number; readonly ids: readonly string[] }
  /** Counts per group (a checkpoint, a day, both): compared as a map. */
  | { readonly kind: 'rows'; readonly rows: readonly (readonly [string, number])[] }
  | { readonly kind: 'count'; readonly count: number };

const MAX_LISTED = 5;

/** The differences between two answers to the same query, for a person to read; empty when they agree. */
export function compareAnswers(a: Answer, b: Answer): string[] {
  if (a.kind !== b.kind) return [`answer kinds differ: ${a.kind} vs ${b.kind}`];
  switch (a.kind) {
    case 'count':
      return a.count === (b as typeof a).count ? [] : [`count ${a.count} vs ${(b as typeof a).count}`];
    case 'list':
      return compareLists(a, b as typeof a);
    case 'rows':
      return compareRows(a.rows, (b as typeof a).rows);
    case 'top':
      return compareTops(a, b as typeof a);
  }
}

function compareLists(a: { total: number; ids: readonly string[] }, b: { total: number; ids: readonly string[] }): string[] {
  const out: string[] = [];
  if (a.total !== b.total) out.push(`total ${a.total} vs ${b.total}`);
  if (a.ids.length !== b.ids.length) out.push(`${a.ids.length} ids vs ${b.ids.length}`);
  const n = Math.min(a.ids.length, b.ids.length);
  for (let i = 0; i < n && out.length < MAX_LISTED; i++) {
    if (a.ids[i] !== b.ids[i]) out.push(`position ${i}: ${a.ids[i]} vs ${b.ids[i]}`);
  }
  return out;
}

function compareRows(a: readonly (readonly [string, number])[], b: readonly (readonly [string, number])[]): string[] {
  const out: string[] = [];
  const mapA = toMap(a, 'first', out);
  const mapB = toMap(b, 'second', out);
  if (mapA.size !== mapB.size) out.push(`${mapA.size} groups vs ${mapB.size}`);
  for (const [key, count] of mapA) {
    if (out.length >= MAX_LISTED) break;
    const other = mapB.get(key);
    if (other !== count) out.push(`group ${key}: ${count} vs ${other ?? 'missing'}`);
  }
  for (const key of mapB.keys()) {
    if (out.length >= MAX_LISTED) break;
    if (!mapA.has(key)) out.push(`group ${key}: missing vs ${mapB.get(key)}`);
  }
  return out;
}

function toMap(rows: readonly (readonly [string, number])[], which: string, out: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const [key, count] of rows) {
    if (m.has(key)) out.push(`group ${key} twice in the ${which} answer`);
    m.set(key, count);
  }
  return m;
}

/**
 * Top-N lists agree when the totals and the sequence of sort keys are equal
 * and each run of equal keys holds the same ids, except the last run when
 * the list was cut (fewer hits than the total): a LIMIT may keep any of the
 * tied passes there.
 */
function compareTops(a: { total: number; hits: readonly TopHit[] }, b: { total: number; hits: readonly TopHit[] }): string[] {
  const out: string[] = [];
  if (a.total !== b.total) out.push(`total ${a.total} vs ${b.total}`);
  if (a.hits.length !== b.hits.length) {
    out.push(`${a.hits.length} hits vs ${b.hits.length}`);
    return out;
  }
  for (let i = 0; i < a.hits.length; i++) {
    if (a.hits[i]!.key !== b.hits[i]!.key) {
      out.push(`hit ${i}: sort key ${a.hits[i]!.key} (${a.hits[i]!.id}) vs ${b.hits[i]!.key} (${b.hits[i]!.id})`);
      return out;
    }
  }
  const cut = a.hits.length < a.total;
  for (let start = 0; start < a.hits.length; ) {
    let end = start + 1;
    while (end < a.hits.length && a.hits[end]!.key === a.hits[start]!.key) end++;
    const lastRun = end === a.hits.length;
    const idsA = a.hits.slice(start, end).map((h) => h.id);
    const idsB = b.hits.slice(start, end).map((h) => h.id);
    if (new Set(idsA).size !== idsA.length || new Set(idsB).size !== idsB.length) out.push(`an id twice among hits ${start}..${end - 1}`);
    else if (!(lastRun && cut) && !sameSet(idsA, idsB)) out.push(`hits ${start}..${end - 1} (key ${a.hits[start]!.key}): ${idsA.join(',')} vs ${idsB.join(',')}`);
    start = end;
  }
  return out;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

/** A short digest of an answer for the report (what agreed). */
export function describeAnswer(a: Answer): string {
  switch (a.kind) {
    case 'count':
      return `count ${a.count}`;
    case 'list':
      return `${a.total} passes`;
    case 'rows':
      return `${a.rows.length} groups, ${a.rows.reduce((s, r) => s + r[1], 0)} passes`;
    case 'top':
      return `total ${a.total}, top ${a.hits.length}`;
  }
}
