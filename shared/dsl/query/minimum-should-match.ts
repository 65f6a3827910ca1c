/**
 * `minimum_should_match` as Elasticsearch 6.8 resolves it
 * (Queries.calculateMinShouldMatch): an integer (`3`), a negative integer
 * (`-1`: all but one), a percentage (`75%`, `-25%`, rounded down), or
 * conditional combinations (`3<90%`, `2<-25% 9<-3`).
 */
import { numberFormatException } from '../../errors/es-errors.ts';

function javaParseInt(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw numberFormatException(`For input string: "${s}"`);
  const n = Number(s);
  if (n > 2147483647 || n < -2147483648) throw numberFormatException(`For input string: "${s}"`);
  return n;
}

/** The number of optional clauses that must match out of `optionalClauseCount`. */
export function calculateMinShouldMatch(optionalClauseCount: number, spec: string): number {
  let result = optionalClauseCount;
  spec = spec.trim();
  if (spec.includes('<')) {
    // Conditional specs: "upper<spec" pairs separated by spaces.
    spec = spec.replace(/(\s+<\s*)|(\s*<\s+)/g, '<');
    for (const s of spec.split(' ')) {
      const parts = s.split('<');
      const upperBound = javaParseInt(parts[0]!);
      if (optionalClauseCount <= upperBound) return result;
      result = calculateMinShouldMatch(optionalClauseCount, parts[1] ?? '');
    }
    return result;
  }
  if (spec.includes('%')) {
    const percent = javaParseInt(spec.slice(0, -1));
    // Java: float calc = (result * percent) * (1 / 100f); truncation toward zero.
    const calc = Math.fround(Math.fround(result * percent) * Math.fround(1 / 100));
    result = calc < 0 ? result + Math.trunc(calc) : Math.trunc(calc);
  } else {
    const calc = javaParseInt(spec);
    result = calc < 0 ? result + calc : calc;
  }
  return result < 0 ? 0 : result;
}
