/**
 * Regular expressions from requests and settings, run in linear time.
 *
 * Every user-supplied pattern (analysis `pattern` tokenizers and analyzers,
 * `pattern_replace` char filters, dynamic templates with
 * `match_pattern: regex`, terms aggregation include/exclude) goes through
 * here instead of `new RegExp`, whose backtracking lets one request hold a
 * thread for minutes. Java's syntax is read (java-pattern-parser.ts) and run
 * by a Pike VM (pike-vm.ts); what needs backtracking is refused with a 400
 * naming the pattern.
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import { getOwn } from '../../json/own-keys.ts';
import { Flag, parseJavaPattern } from './java-pattern-parser.ts';
import { compileProgram, runProgram, type Program } from './pike-vm.ts';

export class LinearRegex {
  readonly source: string;
  /** Capturing groups (not counting group 0). */
  readonly groupCount: number;
  private readonly program: Program;

  constructor(source: string, flags: number) {
    this.source = source;
    const parsed = parseJavaPattern(source, flags);
    this.groupCount = parsed.groupCount;
    this.program = compileProgram(source, parsed);
  }

  /**
   * The first match at or after `from` (Matcher.find): slots
   * [start, end, group1 start, group1 end, ...] in UTF-16 indexes, -1 for a
   * group that took no part; null when there is none.
   */
  find(text: string, from = 0, groups = true): Int32Array | null {
    return runProgram(this.program, text, from, { anchored: false, toEnd: false, groups });
  }

  /** Whether the whole text matches (Matcher.matches, String.matches). */
  matches(text: string): boolean {
    return runProgram(this.program, text, 0, { anchored: true, toEnd: true, groups: false }) !== null;
  }

  /** Every match from the start, as Matcher.find in a loop does (after an empty match the search moves on one character). */
  *findAll(text: string, groups = true): Generator<Int32Array> {
    let from = 0;
    while (from <= text.length) {
      const m = this.find(text, from, groups);
      if (m === null) return;
      yield m;
      if (m[1] === m[0]) {
        if (m[1]! >= text.length) return;
        const cp = text.codePointAt(m[1]!)!;
        from = m[1]! + (cp > 0xffff ? 2 : 1);
      } else {
        from = m[1]!;
      }
    }
  }
}

/** Java Pattern flag names, as Elasticsearch's Regex.flagsFromString accepts them (`CASE_INSENSITIVE|COMMENTS`). */
const JAVA_FLAG_NAMES: Readonly<Record<string, number>> = {
  CASE_INSENSITIVE: Flag.CASE_INSENSITIVE,
  MULTILINE: Flag.MULTILINE,
  DOTALL: Flag.DOTALL,
  UNICODE_CASE: Flag.UNICODE_CASE,
  CANON_EQ: Flag.CANON_EQ,
  UNIX_LINES: Flag.UNIX_LINES,
  LITERAL: Flag.LITERAL,
  COMMENTS: Flag.COMMENTS,
  UNICODE_CHARACTER_CLASS: Flag.UNICODE_CHARACTER_CLASS,
};

/** Regex.flagsFromString: `|`-separated names, `Unknown regex flag [X]` otherwise. */
export function javaFlagsFromString(flags: string): number {
  let out = 0;
  for (const raw of flags.split('|')) {
    const name = raw.trim();
    if (name === '') continue;
    const bit = getOwn(JAVA_FLAG_NAMES, name);
    if (bit === undefined) throw illegalArgument(`Unknown regex flag [${name}]`);
    out |= bit;
  }
  return out;
}

/** A Java pattern with Elasticsearch's `flags` string. */
export function compileJavaPattern(pattern: string, flags = ''): LinearRegex {
  return new LinearRegex(pattern, javaFlagsFromString(flags));
}
