/**
 * BaseRestHandler.unrecognized: the message of a request naming metrics or
 * parameters an endpoint does not have, with Lucene's LevensteinDistance
 * suggestions (`request [/_stats/dcs] contains unrecognized metric: [dcs]
 * -> did you mean [docs]?`).
 */
import { illegalArgument, type EsError } from '../../../shared/errors/es-errors.ts';

/** Lucene's LevensteinDistance.getDistance: 1 - edits / longer length (1 = equal). */
function similarity(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return a === b ? 1 : 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return 1 - prev[b.length]! / Math.max(a.length, b.length);
}

export function unrecognized(path: string, invalid: readonly string[], candidates: Iterable<string>, detail: string): EsError {
  const parts = invalid.map((bad) => {
    const scored = [...candidates]
      .map((c) => ({ c, d: Math.fround(similarity(bad, c)) }))
      .filter((s) => s.d > 0.5)
      .sort((x, y) => y.d - x.d || (x.c < y.c ? -1 : 1))
      .map((s) => s.c);
    const hint = scored.length === 0 ? '' : scored.length === 1 ? ` -> did you mean [${scored[0]}]?` : ` -> did you mean any of [${scored.join(', ')}]?`;
    return `[${bad}]${hint}`;
  });
  return illegalArgument(`request [${path}] contains unrecognized ${detail}${invalid.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
}
