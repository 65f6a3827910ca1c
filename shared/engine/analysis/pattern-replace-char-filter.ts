/**
 * Lucene's PatternReplaceCharFilter (Elasticsearch's `pattern_replace` char
 * filter): every match of `pattern` is replaced by `replacement` ($1 refers to
 * a group, as in Java).
 */

import { applyReplacements, type Replacement } from './offset-correction.ts';
import type { CharFilter, CharFilterResult } from './token-stream.ts';

/** Expands Java's replacement syntax ($n groups, \x escapes) for one match. */
function expandReplacement(template: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '\\' && i + 1 < template.length) {
      out += template[++i];
    } else if (c === '$' && i + 1 < template.length && /\d/.test(template[i + 1]!)) {
      let j = i + 1;
      let group = Number(template[j]);
      // Java takes further digits while they still name an existing group.
      while (j + 1 < template.length && /\d/.test(template[j + 1]!) && group * 10 + Number(template[j + 1]) < m.length) {
        group = group * 10 + Number(template[++j]);
      }
      out += m[group] ?? '';
      i = j;
    } else {
      out += c;
    }
  }
  return out;
}

export class PatternReplaceCharFilter implements CharFilter {
  readonly name: string;
  readonly normalizerSafe = true;
  private readonly regex: RegExp;
  private readonly replacement: string;

  constructor(name: string, regex: RegExp, replacement: string) {
    this.name = name;
    this.regex = regex;
    this.replacement = replacement;
  }

  apply(text: string): CharFilterResult {
    const re = this.regex;
    re.lastIndex = 0;
    const replacements: Replacement[] = [];
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      replacements.push({ start: m.index, end: m.index + m[0].length, replacement: expandReplacement(this.replacement, m) });
      if (m[0].length === 0) re.lastIndex++;
    }
    return applyReplacements(text, replacements);
  }
}
