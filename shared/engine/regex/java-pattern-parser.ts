/**
 * java.util.regex.Pattern syntax, as Elasticsearch settings and requests give
 * it (`pattern` tokenizer and analyzer, `pattern_replace`, dynamic templates
 * with `match_pattern: regex`), parsed into a small tree for the linear-time
 * engine (pike-vm.ts). What only a backtracking engine can run is refused by
 * name: backreferences, atomic groups, possessive quantifiers, `\G`, and
 * lookahead or lookbehind that can match more than a few characters. Syntax errors carry Java's description and index.
 */

import { patternSyntax, regexNotLinear } from '../../errors/es-errors.ts';
import {
  ALL,
  HORIZONTAL_SPACE,
  VERTICAL_SPACE,
  caseInsensitive,
  caseVariants,
  complement,
  intersection,
  isLineTerminator,
  javaProperty,
  predefinedClass,
  range,
  single,
  union,
  type CodePointTest,
} from './char-set.ts';

/** Pattern's flag bits (java.util.regex.Pattern constants). */
export const Flag = {
  UNIX_LINES: 0x01,
  CASE_INSENSITIVE: 0x02,
  COMMENTS: 0x04,
  MULTILINE: 0x08,
  LITERAL: 0x10,
  DOTALL: 0x20,
  UNICODE_CASE: 0x40,
  CANON_EQ: 0x80,
  UNICODE_CHARACTER_CLASS: 0x100,
} as const;

export type Assertion =
  | 'text_start' // \A, ^
  | 'line_start' // ^ with MULTILINE
  | 'line_start_unix'
  | 'text_end' // \z
  | 'text_end_or_final_terminator' // $, \Z
  | 'text_end_or_final_newline_unix'
  | 'line_end' // $ with MULTILINE
  | 'line_end_unix'
  | 'word_boundary'
  | 'not_word_boundary';

export type RegexNode =
  | { readonly k: 'empty' }
  | { readonly k: 'char'; readonly cps: readonly number[] }
  | { readonly k: 'set'; readonly test: CodePointTest }
  | { readonly k: 'cat'; readonly items: readonly RegexNode[] }
  | { readonly k: 'alt'; readonly items: readonly RegexNode[] }
  | { readonly k: 'repeat'; readonly node: RegexNode; readonly min: number; readonly max: number; readonly greedy: boolean }
  | { readonly k: 'group'; readonly node: RegexNode; readonly index: number }
  | { readonly k: 'assert'; readonly what: Assertion }
  /** (?=X), (?!X), (?<=X), (?<!X) with X of bounded length. */
  | { readonly k: 'look'; readonly node: RegexNode; readonly ahead: boolean; readonly negate: boolean; readonly minLength: number; readonly maxLength: number };

export interface ParsedPattern {
  readonly root: RegexNode;
  /** Capturing groups, group 0 (the whole match) not counted. */
  readonly groupCount: number;
}

const EMPTY: RegexNode = { k: 'empty' };
const SPACE_CHARS = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);
/** The longest text a lookahead or lookbehind may match (in code points). */
export const MAX_LOOKAROUND_LENGTH = 100;

/** The fewest and most code points a node can match (Infinity when unbounded). */
export function lengthBounds(n: RegexNode): [number, number] {
  switch (n.k) {
    case 'empty':
    case 'assert':
    case 'look':
      return [0, 0];
    case 'char':
    case 'set':
      return [1, 1];
    case 'group':
      return lengthBounds(n.node);
    case 'cat': {
      let lo = 0;
      let hi = 0;
      for (const item of n.items) {
        const [a, b] = lengthBounds(item);
        lo += a;
        hi += b;
      }
      return [lo, hi];
    }
    case 'alt': {
      let lo = Infinity;
      let hi = 0;
      for (const item of n.items) {
        const [a, b] = lengthBounds(item);
        lo = Math.min(lo, a);
        hi = Math.max(hi, b);
      }
      return [lo, hi];
    }
    case 'repeat': {
      const [a, b] = lengthBounds(n.node);
      return [a * n.min, b === 0 ? 0 : b * n.max];
    }
  }
}

/** `{n}` above this is refused: Pattern allows up to 2^31-1, but every copy is a state here (RE2 has the same bound). */
export const MAX_REPEAT = 1000;

class Parser {
  private pos = 0;
  private groups = 0;
  private readonly cps: number[];
  /** UTF-16 index of each code point, for Java's `near index`. */
  private readonly at: number[];

  constructor(
    private readonly pattern: string,
    private flags: number,
  ) {
    this.cps = [];
    this.at = [];
    for (let i = 0; i < pattern.length; ) {
      const cp = pattern.codePointAt(i)!;
      this.cps.push(cp);
      this.at.push(i);
      i += cp > 0xffff ? 2 : 1;
    }
  }

  parse(): ParsedPattern {
    if (this.flags & Flag.LITERAL) {
      const items = this.cps.map((cp) => this.literal(cp));
      return { root: { k: 'cat', items }, groupCount: 0 };
    }
    const root = this.alternation();
    if (this.pos < this.cps.length) {
      // Only an unmatched `)` stops the top level.
      throw this.syntax('Unmatched closing \')\'', this.pos - 1);
    }
    return { root, groupCount: this.groups };
  }

  private syntax(description: string, cpIndex = this.pos): Error {
    const index = cpIndex < 0 ? 0 : cpIndex >= this.at.length ? this.pattern.length : this.at[cpIndex]!;
    return patternSyntax(description, this.pattern, index);
  }

  private refuse(what: string): Error {
    return regexNotLinear(this.pattern, what);
  }

  private peek(offset = 0): number {
    return this.cps[this.pos + offset] ?? -1;
  }

  private has(flag: number): boolean {
    return (this.flags & flag) !== 0;
  }

  /** In COMMENTS mode whitespace and `#` comments between tokens are skipped. */
  private skipComments(): void {
    if (!this.has(Flag.COMMENTS)) return;
    for (;;) {
      const c = this.peek();
      if (SPACE_CHARS.has(c)) this.pos++;
      else if (c === 0x23 /* # */) {
        while (this.pos < this.cps.length && !isLineTerminator(this.peek(), this.has(Flag.UNIX_LINES))) this.pos++;
      } else return;
    }
  }

  /** Inline flags set in one alternative hold in the next ones too, up to the group's end (group() restores them). */
  private alternation(): RegexNode {
    const items = [this.sequence()];
    while (this.peek() === 0x7c /* | */) {
      this.pos++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { k: 'alt', items };
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = [];
    for (;;) {
      this.skipComments();
      const c = this.peek();
      if (c === -1 || c === 0x7c || c === 0x29 /* ) */) break;
      const atom = this.atom();
      if (atom === null) continue;
      items.push(this.quantified(atom));
    }
    if (items.length === 0) return EMPTY;
    return items.length === 1 ? items[0]! : { k: 'cat', items };
  }

  private quantified(atom: RegexNode): RegexNode {
    let node = atom;
    for (;;) {
      this.skipComments();
      const start = this.pos;
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === 0x2a /* * */) [min, max] = [0, Infinity];
      else if (c === 0x2b /* + */) [min, max] = [1, Infinity];
      else if (c === 0x3f /* ? */) [min, max] = [0, 1];
      else if (c === 0x7b /* { */) {
        const bounds = this.braces();
        if (bounds === null) throw this.syntax('Illegal repetition', start);
        [min, max] = bounds;
        this.pos--;
      } else return node;
      this.pos++;
      let greedy = true;
      if (this.peek() === 0x3f) {
        greedy = false;
        this.pos++;
      } else if (this.peek() === 0x2b) {
        throw this.refuse('uses a possessive quantifier');
      }
      if (node.k === 'assert' || node.k === 'look' || node.k === 'empty') {
        // Java accepts a quantified assertion; it matches like the assertion (or nothing when min is 0).
        node = min === 0 ? EMPTY : node;
        continue;
      }
      node = { k: 'repeat', node, min, max, greedy };
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` at pos (on `{`); leaves pos on the closing `}`. */
  private braces(): [number, number] | null {
    let i = this.pos + 1;
    const num = (): number | null => {
      let v = 0;
      let digits = 0;
      while (this.cps[i] !== undefined && this.cps[i]! >= 0x30 && this.cps[i]! <= 0x39) {
        v = v * 10 + (this.cps[i]! - 0x30);
        if (v > 0x7fffffff) return null;
        i++;
        digits++;
      }
      return digits === 0 ? null : v;
    };
    const min = num();
    if (min === null) return null;
    let max = min;
    if (this.cps[i] === 0x2c /* , */) {
      i++;
      if (this.cps[i] === 0x7d) max = Infinity;
      else {
        const m = num();
        if (m === null) return null;
        max = m;
      }
    }
    if (this.cps[i] !== 0x7d) return null;
    if (max < min) throw this.syntax('Illegal repetition range', this.pos);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
      throw this.refuse(`repeats more than ${MAX_REPEAT} times`);
    }
    this.pos = i + 1;
    return [min, max];
  }

  private literal(cp: number): RegexNode {
    if (this.has(Flag.CASE_INSENSITIVE)) {
      const cps = caseVariants(cp, this.has(Flag.UNICODE_CASE) || this.has(Flag.UNICODE_CHARACTER_CLASS));
      return { k: 'char', cps };
    }
    return { k: 'char', cps: [cp] };
  }

  private setNode(test: CodePointTest): RegexNode {
    return { k: 'set', test };
  }

  /** A class test made case-insensitive when the flag is on. */
  private folded(test: CodePointTest): CodePointTest {
    if (!this.has(Flag.CASE_INSENSITIVE)) return test;
    return caseInsensitive(test, this.has(Flag.UNICODE_CASE) || this.has(Flag.UNICODE_CHARACTER_CLASS));
  }

  private atom(): RegexNode | null {
    const c = this.peek();
    switch (c) {
      case 0x28 /* ( */:
        return this.group();
      case 0x5b /* [ */: {
        this.pos++;
        return this.setNode(this.folded(this.charClass()));
      }
      case 0x2e /* . */: {
        this.pos++;
        if (this.has(Flag.DOTALL)) return this.setNode(ALL);
        const unix = this.has(Flag.UNIX_LINES);
        return this.setNode((cp) => !isLineTerminator(cp, unix));
      }
      case 0x5e /* ^ */:
        this.pos++;
        if (!this.has(Flag.MULTILINE)) return { k: 'assert', what: 'text_start' };
        return { k: 'assert', what: this.has(Flag.UNIX_LINES) ? 'line_start_unix' : 'line_start' };
      case 0x24 /* $ */:
        this.pos++;
        if (this.has(Flag.MULTILINE)) return { k: 'assert', what: this.has(Flag.UNIX_LINES) ? 'line_end_unix' : 'line_end' };
        return { k: 'assert', what: this.has(Flag.UNIX_LINES) ? 'text_end_or_final_newline_unix' : 'text_end_or_final_terminator' };
      case 0x5c /* \ */:
        return this.escape();
      case 0x2a:
      case 0x2b:
      case 0x3f:
        throw this.syntax(`Dangling meta character '${String.fromCodePoint(c)}'`);
      case 0x7b /* { */:
        throw this.syntax('Illegal repetition');
      default:
        this.pos++;
        return this.literal(c);
    }
  }

  private group(): RegexNode | null {
    this.pos++;
    const savedFlags = this.flags;
    let capture = -1;
    if (this.peek() === 0x3f /* ? */) {
      this.pos++;
      const k = this.peek();
      if (k === 0x3a /* : */) this.pos++;
      else if (k === 0x3d /* = */ || k === 0x21 /* ! */) {
        this.pos++;
        return this.lookaround(true, k === 0x21, savedFlags);
      } else if (k === 0x3e /* > */) throw this.refuse('uses an atomic group');
      else if (k === 0x3c /* < */) {
        const n = this.peek(1);
        if (n === 0x3d || n === 0x21) {
          this.pos += 2;
          return this.lookaround(false, n === 0x21, savedFlags);
        }
        this.pos++;
        const nameStart = this.pos;
        while (this.peek() !== 0x3e && this.peek() !== -1) this.pos++;
        const name = String.fromCodePoint(...this.cps.slice(nameStart, this.pos));
        if (this.peek() !== 0x3e || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw this.syntax('named capturing group is missing trailing \'>\'');
        this.pos++;
        capture = ++this.groups;
      } else {
        // Inline flags: (?idmsuxU-idmsuxU) for the rest of the group, or (?flags:X).
        let on = true;
        for (;;) {
          const f = this.peek();
          const bit = INLINE_FLAGS.get(f);
          if (f === 0x2d /* - */) on = false;
          else if (bit !== undefined) this.flags = on ? this.flags | bit : this.flags & ~bit;
          else if (f === 0x29 /* ) */) {
            // Applies to the enclosing group from here on: not restored at this `)`.
            this.pos++;
            return null;
          } else if (f === 0x3a) break;
          else throw this.syntax('Unknown inline modifier');
          this.pos++;
        }
        this.pos++;
      }
    } else {
      capture = ++this.groups;
    }
    const body = this.alternation();
    if (this.peek() !== 0x29) throw this.syntax('Unclosed group', this.cps.length);
    this.pos++;
    this.flags = savedFlags;
    return capture < 0 ? body : { k: 'group', node: body, index: capture };
  }

  /**
   * The body of a lookahead or lookbehind, up to its `)`. Only bodies that
   * match at most MAX_LOOKAROUND_LENGTH characters are taken: the engine tries
   * such a body at one position in a bounded number of steps, so the match
   * stays linear in the text (Java needs a bounded length for lookbehind too).
   */
  private lookaround(ahead: boolean, negate: boolean, savedFlags: number): RegexNode {
    const body = this.alternation();
    if (this.peek() !== 0x29) throw this.syntax('Unclosed group', this.cps.length);
    this.pos++;
    this.flags = savedFlags;
    const [minLength, maxLength] = lengthBounds(body);
    if (maxLength > MAX_LOOKAROUND_LENGTH) {
      throw this.refuse(`uses a ${ahead ? 'lookahead' : 'lookbehind'} that can match more than ${MAX_LOOKAROUND_LENGTH} characters`);
    }
    return { k: 'look', node: body, ahead, negate, minLength, maxLength };
  }

  /** After `[` (and before its contents): a class with ranges, nested classes (union), `&&` (intersection) and `^`. */
  private charClass(): CodePointTest {
    let negate = false;
    if (this.peek() === 0x5e) {
      negate = true;
      this.pos++;
    }
    let acc: CodePointTest | null = null; // the intersection so far
    let cur: CodePointTest | null = null; // the union being read
    let first = true;
    const add = (t: CodePointTest): void => {
      cur = cur === null ? t : union(cur, t);
    };
    for (;;) {
      if (this.has(Flag.COMMENTS)) while (SPACE_CHARS.has(this.peek())) this.pos++;
      const c = this.peek();
      if (c === -1) throw this.syntax('Unclosed character class', this.cps.length - 1);
      if (c === 0x5d /* ] */ && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === 0x5b) {
        this.pos++;
        add(this.charClass());
        continue;
      }
      if (c === 0x26 && this.peek(1) === 0x26 /* && */) {
        this.pos += 2;
        const part: CodePointTest = cur ?? ALL;
        acc = acc === null ? part : intersection(acc, part);
        cur = null;
        continue;
      }
      const lo = this.classAtom();
      if (typeof lo !== 'number') {
        add(lo);
        continue;
      }
      if (this.peek() === 0x2d /* - */ && this.peek(1) !== 0x5d && this.peek(1) !== -1 && this.peek(1) !== 0x5b) {
        this.pos++;
        const hi = this.classAtom();
        if (typeof hi !== 'number' || hi < lo) throw this.syntax('Illegal character range', this.pos - 1);
        add(range(lo, hi));
      } else {
        add(single(lo));
      }
    }
    let result: CodePointTest = acc === null ? (cur ?? (() => false)) : cur === null ? acc : intersection(acc, cur);
    if (negate) result = complement(result);
    return result;
  }

  /** One character of a class (a code point) or a predefined class inside it. */
  private classAtom(): number | CodePointTest {
    const c = this.peek();
    if (c !== 0x5c) {
      this.pos++;
      return c;
    }
    const node = this.escape(true);
    if (node.k === 'char') return node.cps[0]!;
    if (node.k === 'set') return node.test;
    throw this.syntax('Illegal/unsupported escape sequence', this.pos - 1);
  }

  /** At `\`. Inside a class only character and class escapes are allowed. */
  private escape(inClass = false): RegexNode {
    const slash = this.pos;
    this.pos++;
    const c = this.peek();
    if (c === -1) throw this.syntax('Unexpected internal error', this.cps.length);
    this.pos++;
    const ch = String.fromCodePoint(c);
    const unicodeClasses = this.has(Flag.UNICODE_CHARACTER_CLASS);
    const plain = (cp: number): RegexNode => (inClass ? { k: 'char', cps: [cp] } : this.literal(cp));
    switch (ch) {
      case 'd':
      case 's':
      case 'w':
        return this.setNode(predefinedClass(ch, unicodeClasses));
      case 'D':
      case 'S':
      case 'W':
        return this.setNode(complement(predefinedClass(ch.toLowerCase() as 'd' | 's' | 'w', unicodeClasses)));
      case 'h':
        return this.setNode(HORIZONTAL_SPACE);
      case 'H':
        return this.setNode(complement(HORIZONTAL_SPACE));
      case 'v':
        return this.setNode(VERTICAL_SPACE);
      case 'V':
        return this.setNode(complement(VERTICAL_SPACE));
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === 0x7b) {
          const close = this.cps.indexOf(0x7d, this.pos);
          if (close < 0) throw this.syntax('Unclosed character family');
          name = String.fromCodePoint(...this.cps.slice(this.pos + 1, close));
          this.pos = close + 1;
        } else {
          if (this.peek() === -1) throw this.syntax('Illegal character family');
          name = String.fromCodePoint(this.peek());
          this.pos++;
        }
        const test = javaProperty(name, unicodeClasses);
        if (typeof test === 'string') throw this.syntax(test, this.pos - 1);
        const t = inClass ? test : this.folded(test);
        return this.setNode(ch === 'P' ? complement(t) : t);
      }
      case 't':
        return plain(0x09);
      case 'n':
        return plain(0x0a);
      case 'r':
        return plain(0x0d);
      case 'f':
        return plain(0x0c);
      case 'a':
        return plain(0x07);
      case 'e':
        return plain(0x1b);
      case 'c': {
        const n = this.peek();
        if (n === -1) throw this.syntax('Illegal control escape sequence');
        this.pos++;
        return plain(n ^ 64);
      }
      case '0': {
        let v = 0;
        let digits = 0;
        while (digits < 3 && this.peek() >= 0x30 && this.peek() <= 0x37 && v * 8 + (this.peek() - 0x30) <= 0o377) {
          v = v * 8 + (this.peek() - 0x30);
          this.pos++;
          digits++;
        }
        if (digits === 0) throw this.syntax('Illegal octal escape sequence');
        return plain(v);
      }
      case 'x': {
        if (this.peek() === 0x7b) {
          const close = this.cps.indexOf(0x7d, this.pos);
          const hex = close < 0 ? '' : String.fromCodePoint(...this.cps.slice(this.pos + 1, close));
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) throw this.syntax('Illegal hexadecimal escape sequence');
          this.pos = close + 1;
          return plain(parseInt(hex, 16));
        }
        return plain(this.hexDigits(2));
      }
      case 'u':
        return plain(this.hexDigits(4));
      case 'Q': {
        if (inClass) throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
        const items: RegexNode[] = [];
        while (this.pos < this.cps.length && !(this.peek() === 0x5c && this.peek(1) === 0x45)) items.push(this.literal(this.cps[this.pos++]!));
        if (this.pos < this.cps.length) this.pos += 2;
        return items.length === 1 ? items[0]! : { k: 'cat', items };
      }
      case 'E':
        // A lone \E is ignored by Java.
        if (inClass) throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
        return EMPTY;
      case 'b':
      case 'B':
      case 'A':
      case 'z':
      case 'Z':
      case 'R':
        if (inClass) throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
        return this.anchorEscape(ch);
      case 'G':
        throw this.refuse('uses \\G');
      case 'k':
        throw this.refuse('uses a backreference');
      case 'X':
      case 'N':
        throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
      default:
        if (c >= 0x31 && c <= 0x39) {
          if (inClass) throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
          throw this.refuse('uses a backreference');
        }
        // Java: an escaped letter or digit that means nothing is an error; anything else is itself.
        if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
          throw this.syntax('Illegal/unsupported escape sequence', slash + 1);
        }
        return plain(c);
    }
  }

  private anchorEscape(ch: string): RegexNode {
    switch (ch) {
      case 'b':
        return { k: 'assert', what: 'word_boundary' };
      case 'B':
        return { k: 'assert', what: 'not_word_boundary' };
      case 'A':
        return { k: 'assert', what: 'text_start' };
      case 'z':
        return { k: 'assert', what: 'text_end' };
      case 'Z':
        return { k: 'assert', what: this.has(Flag.UNIX_LINES) ? 'text_end_or_final_newline_unix' : 'text_end_or_final_terminator' };
      default: {
        // \R: a linebreak, \r\n as one.
        const crlf: RegexNode = { k: 'cat', items: [{ k: 'char', cps: [0x0d] }, { k: 'char', cps: [0x0a] }] };
        return { k: 'alt', items: [crlf, this.setNode((cp) => (cp >= 0x0a && cp <= 0x0d) || cp === 0x85 || cp === 0x2028 || cp === 0x2029)] };
      }
    }
  }

  private hexDigits(n: number): number {
    const hex = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + n));
    if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw this.syntax(n === 2 ? 'Illegal hexadecimal escape sequence' : 'Illegal Unicode escape sequence');
    this.pos += n;
    return parseInt(hex, 16);
  }
}

const INLINE_FLAGS = new Map<number, number>([
  [0x69 /* i */, Flag.CASE_INSENSITIVE],
  [0x64 /* d */, Flag.UNIX_LINES],
  [0x6d /* m */, Flag.MULTILINE],
  [0x73 /* s */, Flag.DOTALL],
  [0x75 /* u */, Flag.UNICODE_CASE],
  [0x78 /* x */, Flag.COMMENTS],
  [0x55 /* U */, Flag.UNICODE_CHARACTER_CLASS | Flag.UNICODE_CASE],
]);

export function parseJavaPattern(pattern: string, flags: number): ParsedPattern {
  return new Parser(pattern, flags).parse();
}
