/**
 * Lucene's MappingCharFilter (Elasticsearch's `mapping` char filter): at each
 * position the longest matching key is replaced by its value.
 */

import { illegalArgument, runtimeException } from '../../errors/es-errors.ts';
import { applyReplacements, type Replacement } from './offset-correction.ts';
import type { CharFilter, CharFilterResult } from './token-stream.ts';

/** MappingCharFilterFactory's rule syntax: `key => value`, split at the last `=>`. */
const RULE = /^(.*)\s*=>\s*(.*)\s*$/s;

/** MappingCharFilterFactory.parseString: backslash escapes in keys and values. */
function unescapeRule(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const e = s[++i]!;
    switch (e) {
      case '\\':
      case '"':
      case "'":
        out += e;
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        const hex = s.slice(i + 1, i + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw illegalArgument(`Invalid escaped char in [${s}]`);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        break;
      }
      default:
        out += e;
    }
  }
  return out;
}

export function parseMappingRules(rules: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const rule of rules) {
    const m = RULE.exec(rule);
    if (m === null) throw runtimeException(`Invalid Mapping Rule : [${rule}]`);
    const key = unescapeRule(m[1]!.trim());
    const value = unescapeRule(m[2]!.trim());
    if (key.length === 0) throw illegalArgument(`Invalid Mapping Rule : [${rule}]. Illegal mapping.`);
    map.set(key, value);
  }
  return map;
}

export class MappingCharFilter implements CharFilter {
  readonly name: string;
  readonly normalizerSafe = true;
  private readonly map: ReadonlyMap<string, string>;
  private readonly maxKeyLength: number;
  /** First UTF-16 units of the keys, to skip positions where nothing can match. */
  private readonly firstUnits: ReadonlySet<number>;

  constructor(name: string, map: ReadonlyMap<string, string>) {
    this.name = name;
    this.map = map;
    let max = 0;
    const first = new Set<number>();
    for (const k of map.keys()) {
      max = Math.max(max, k.length);
      first.add(k.charCodeAt(0));
    }
    this.maxKeyLength = max;
    this.firstUnits = first;
  }

  apply(text: string): CharFilterResult {
    const replacements: Replacement[] = [];
    let i = 0;
    while (i < text.length) {
      if (!this.firstUnits.has(text.charCodeAt(i))) {
        i++;
        continue;
      }
      let matched = 0;
      for (let len = Math.min(this.maxKeyLength, text.length - i); len > 0; len--) {
        const value = this.map.get(text.slice(i, i + len));
        if (value !== undefined) {
          replacements.push({ start: i, end: i + len, replacement: value });
          matched = len;
          break;
        }
      }
      i += matched > 0 ? matched : 1;
    }
    return applyReplacements(text, replacements);
  }
}
