/**
 * Lucene's PatternReplaceCharFilter (Elasticsearch's `pattern_replace` char
 * filter): every match of `pattern` is replaced by `replacement` ($1 refers to
 * a group, as in Java).
 */

import type { LinearRegex } from './java-regex.ts';
import { applyReplacements, type Replacement } from './offset-correction.ts';
import type { CharFilter, CharFilterResult } from './token-stream.ts';

/** Expands Java's replacement syntax ($n groups, \x escapes) for one match (slots as LinearRegex.find gives them). */
function expandReplacement(template: string, text: string, m: Int32Array): string {
  const groups = m.length / 2;
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '\\' && i + 1 < template.length) {
      out += template[++i];
    } else if (c === '$' && i + 1 < template.length && /\d/.test(template[i + 1]!)) {
      let j = i + 1;
      let g = Number(template[j]);
      // Java takes further digits while they still name an existing group.
      while (j + 1 < template.length && /\d/.test(template[j + 1]!) && g * 10 + Number(template[j + 1]) < groups) {
        g = g * 10 + Number(template[++j]);
      }
      if (g < groups && m[2 * g]! >= 0) out += text.slice(m[2 * g], m[2 * g + 1]);
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
  private readonly regex: LinearRegex;
  private readonly replacement: string;
  /** Whether the replacement refers to a group (then each match's groups are found). */
  private readonly usesGroups: boolean;

  constructor(name: string, regex: LinearRegex, replacement: string) {
    this.name = name;
    this.regex = regex;
    this.replacement = replacement;
    this.usesGroups = replacement.includes('$');
  }

  apply(text: string): CharFilterResult {
    const replacements: Replacement[] = [];
    for (const m of this.regex.findAll(text, this.usesGroups)) {
      replacements.push({ start: m[0]!, end: m[1]!, replacement: expandReplacement(this.replacement, text, m) });
    }
    return applyReplacements(text, replacements);
  }
}
