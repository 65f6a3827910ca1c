/**
 * Lucene's regular expression syntax (RegExp with its default flags), as
 * the `regexp` query and the terms aggregation's `include`/`exclude` take
 * it: a pattern matches a whole term.
 */
import { LinearRegex } from './linear-regex.ts';

/**
 * Lucene RegExp (default flags), rewritten into the Java syntax of the
 * linear-time engine (Lucene runs it as an automaton; a backtracking RegExp
 * would let one aggregation hold a shard worker for minutes).
 */
export function luceneRegex(pattern: string): LinearRegex {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const n = pattern[++i]!;
      out += /[A-Za-z0-9]/.test(n) ? n : `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    switch (c) {
      case '[':
        inClass = true;
        out += c;
        break;
      case '@':
        out += '[\\s\\S]*';
        break;
      case '#':
        out += '(?:)';
        break;
      case '"': {
        const end = pattern.indexOf('"', i + 1);
        const lit = pattern.slice(i + 1, end < 0 ? pattern.length : end);
        out += lit.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        i = end < 0 ? pattern.length : end;
        break;
      }
      case '^':
      case '$':
      case '/':
        out += `\\${c}`;
        break;
      case '.':
        out += '[\\s\\S]';
        break;
      default:
        out += c;
    }
  }
  return new LinearRegex(out, 0);
}
