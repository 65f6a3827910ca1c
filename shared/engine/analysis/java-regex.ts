/**
 * Java regular expressions as Elasticsearch settings give them (`pattern`
 * tokenizer and analyzer, `pattern_replace` char filter), compiled to
 * JavaScript RegExps. Common syntax is shared; Java-only constructs
 * (possessive quantifiers, \A, \Z, embedded flags) are not supported.
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import { getOwn } from '../../json/own-keys.ts';

/** Java Pattern flag names accepted by Elasticsearch's Regex.flagsFromString. */
const JAVA_FLAGS: Readonly<Record<string, string>> = {
  CASE_INSENSITIVE: 'i',
  MULTILINE: 'm',
  DOTALL: 's',
  UNICODE_CASE: '',
  CANON_EQ: '',
  UNIX_LINES: '',
  LITERAL: '',
  COMMENTS: '',
  UNICODE_CHARACTER_CLASS: '',
};

/** JavaScript flags for a `|`-separated list of Java flag names. */
export function jsFlagsFromJava(flags: string): string {
  let out = '';
  for (const raw of flags.split('|')) {
    const name = raw.trim();
    if (name === '') continue;
    const js = getOwn(JAVA_FLAGS, name);
    if (js === undefined) throw illegalArgument(`Unknown regex flag [${name}]`);
    if (!out.includes(js)) out += js;
  }
  return out;
}

/** A global RegExp for a Java pattern; tries Unicode mode first (for \p{..}), then legacy mode. */
export function compileJavaRegex(pattern: string, flags: string): RegExp {
  const js = jsFlagsFromJava(flags);
  try {
    return new RegExp(pattern, `g${js}u`);
  } catch {
    try {
      return new RegExp(pattern, `g${js}`);
    } catch (err) {
      throw illegalArgument(`Invalid regex [${pattern}]: ${(err as Error).message}`);
    }
  }
}
