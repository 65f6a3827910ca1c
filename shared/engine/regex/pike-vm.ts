/**
 * A linear-time regular expression matcher: the pattern tree compiled to a
 * Thompson NFA program and run by a Pike VM (Russ Cox, "Regular Expression
 * Matching: the Virtual Machine Approach"). Every position of the text is
 * visited once with at most one thread per instruction, so a match costs
 * O(text × program) whatever the pattern: `(a+)+$` on 30 `a`s and a `!`,
 * which takes Java's and V8's backtracking engines seconds to minutes, takes
 * microseconds. Threads are kept in priority order and a match cuts the
 * threads below it, which gives the same leftmost-first match and the same
 * groups as Java's Matcher.find.
 */

import { regexNotLinear } from '../../errors/es-errors.ts';
import { CharSet, isJavaWordChar, isLineTerminator } from './char-set.ts';
import type { Assertion, ParsedPattern, RegexNode } from './java-pattern-parser.ts';

/**
 * The most instructions a pattern may compile to. A match costs up to this
 * many steps per character of text; Lucene bounds its automata the same way
 * (`max_determinized_states`, 10,000).
 */
export const MAX_PROGRAM_SIZE = 10_000;

const enum Op {
  Char1, // a: code point
  Char2, // a, b: either code point (a case pair)
  Set, // a: index of a CharSet
  Split, // a first, then b
  Jump, // a
  Save, // a: capture slot
  Assert, // a: index into ASSERTIONS
  Look, // a: index into Program.looks
  Match,
}

const ASSERTIONS: readonly Assertion[] = [
  'text_start',
  'line_start',
  'line_start_unix',
  'text_end',
  'text_end_or_final_terminator',
  'text_end_or_final_newline_unix',
  'line_end',
  'line_end_unix',
  'word_boundary',
  'not_word_boundary',
];

export interface Program {
  /** Three ints per instruction: op, a, b. */
  readonly code: Int32Array;
  readonly sets: readonly CharSet[];
  /** Capture slots: 2 per group, group 0 included. */
  readonly slots: number;
  /** The characters a match can start with, or null when a match can be empty (then every position is tried). */
  readonly first: CharSet | null;
  /** Thread lists reused by every run (a run never re-enters itself). */
  scratch: [ThreadList, ThreadList] | null;
  /** The follow stack: each instruction is pushed at most twice per follow. */
  readonly stack: Int32Array;
  /** Lookahead and lookbehind bodies, each its own program. */
  readonly looks: readonly Lookaround[];
}

interface Lookaround {
  readonly program: Program;
  readonly ahead: boolean;
  readonly negate: boolean;
  readonly minLength: number;
  readonly maxLength: number;
}

class Compiler {
  private code: number[] = [];
  private readonly sets: CharSet[] = [];
  private readonly looks: Lookaround[] = [];

  constructor(private readonly pattern: string) {}

  private emit(op: Op, a = 0, b = 0): number {
    const pc = this.code.length / 3;
    if (pc >= MAX_PROGRAM_SIZE) throw regexNotLinear(this.pattern, `compiles to more than ${MAX_PROGRAM_SIZE} states`);
    this.code.push(op, a, b);
    return pc;
  }

  private patch(pc: number, a: number, b?: number): void {
    this.code[pc * 3 + 1] = a;
    if (b !== undefined) this.code[pc * 3 + 2] = b;
  }

  private get next(): number {
    return this.code.length / 3;
  }

  compile(parsed: ParsedPattern): Program {
    this.emit(Op.Save, 0);
    this.node(parsed.root);
    this.emit(Op.Save, 1);
    this.emit(Op.Match);
    const code = Int32Array.from(this.code);
    return { code, sets: this.sets, slots: (parsed.groupCount + 1) * 2, first: firstChars(code, this.sets), scratch: null, stack: new Int32Array((code.length / 3) * 2 + 2), looks: this.looks };
  }

  private node(n: RegexNode): void {
    switch (n.k) {
      case 'empty':
        return;
      case 'char':
        if (n.cps.length === 1) this.emit(Op.Char1, n.cps[0]!);
        else if (n.cps.length === 2) this.emit(Op.Char2, n.cps[0]!, n.cps[1]!);
        else {
          const cps = new Set(n.cps);
          this.emitSet(new CharSet((cp) => cps.has(cp)));
        }
        return;
      case 'set':
        this.emitSet(new CharSet(n.test));
        return;
      case 'cat':
        for (const item of n.items) this.node(item);
        return;
      case 'alt': {
        // Split L1, next; L1: item0; jmp end; next: split L2, ... ; last item.
        const jumps: number[] = [];
        for (let i = 0; i < n.items.length - 1; i++) {
          const split = this.emit(Op.Split);
          this.node(n.items[i]!);
          jumps.push(this.emit(Op.Jump));
          this.patch(split, split + 1, this.next);
        }
        this.node(n.items[n.items.length - 1]!);
        for (const j of jumps) this.patch(j, this.next);
        return;
      }
      case 'group':
        this.emit(Op.Save, n.index * 2);
        this.node(n.node);
        this.emit(Op.Save, n.index * 2 + 1);
        return;
      case 'assert':
        this.emit(Op.Assert, ASSERTIONS.indexOf(n.what));
        return;
      case 'repeat':
        this.repeat(n.node, n.min, n.max, n.greedy);
        return;
      case 'look': {
        const program = new Compiler(this.pattern).compile({ root: n.node, groupCount: 0 });
        this.looks.push({ program, ahead: n.ahead, negate: n.negate, minLength: n.minLength, maxLength: n.maxLength });
        this.emit(Op.Look, this.looks.length - 1);
        return;
      }
    }
  }

  private emitSet(set: CharSet): void {
    this.sets.push(set);
    this.emit(Op.Set, this.sets.length - 1);
  }

  /** A split whose preferred branch is the body when greedy, the way out when lazy. */
  private split(greedy: boolean, body: number, out: number, pc: number): void {
    if (greedy) this.patch(pc, body, out);
    else this.patch(pc, out, body);
  }

  private repeat(node: RegexNode, min: number, max: number, greedy: boolean): void {
    for (let i = 0; i < min; i++) this.node(node);
    if (max === Infinity) {
      // L: split body, out; body; jmp L
      const loop = this.emit(Op.Split);
      this.node(node);
      this.emit(Op.Jump, loop);
      this.split(greedy, loop + 1, this.next, loop);
      return;
    }
    // x{0,k} = (x(x(...)?)?)?: each optional copy can only follow the one before.
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      const s = this.emit(Op.Split);
      splits.push(s);
      this.node(node);
    }
    const out = this.next;
    for (const s of splits) this.split(greedy, s + 1, out, s);
  }
}

/** The set of characters the consuming instructions reachable from the start accept; null when Match is reachable without a character. */
function firstChars(code: Int32Array, sets: readonly CharSet[]): CharSet | null {
  const tests: ((cp: number) => boolean)[] = [];
  const seen = new Uint8Array(code.length / 3);
  const stack = [0];
  while (stack.length > 0) {
    const pc = stack.pop()!;
    if (seen[pc] === 1) continue;
    seen[pc] = 1;
    const at = pc * 3;
    const a = code[at + 1]!;
    const b = code[at + 2]!;
    switch (code[at] as Op) {
      case Op.Jump:
        stack.push(a);
        break;
      case Op.Split:
        stack.push(a, b);
        break;
      case Op.Save:
      case Op.Assert:
      case Op.Look:
        stack.push(pc + 1);
        break;
      case Op.Match:
        return null;
      case Op.Char1:
        tests.push((cp) => cp === a);
        break;
      case Op.Char2:
        tests.push((cp) => cp === a || cp === b);
        break;
      case Op.Set: {
        const set = sets[a]!;
        tests.push((cp) => set.has(cp));
        break;
      }
    }
  }
  return new CharSet((cp) => tests.some((t) => t(cp)));
}

export function compileProgram(pattern: string, parsed: ParsedPattern): Program {
  return new Compiler(pattern).compile(parsed);
}

/** A list of threads: instruction and captures, in priority order, one per instruction. */
class ThreadList {
  readonly pcs: Int32Array;
  /** Where each thread's match started (the runs that track no groups). */
  readonly starts: Int32Array;
  readonly caps: (Int32Array | null)[];
  length = 0;
  /** `mark[pc] === stamp` when pc is already on the list for this step. */
  readonly mark: Int32Array;
  stamp = 0;

  constructor(size: number) {
    this.pcs = new Int32Array(size);
    this.starts = new Int32Array(size);
    this.caps = new Array<Int32Array | null>(size).fill(null);
    this.mark = new Int32Array(size).fill(-1);
  }

  clear(stamp: number): void {
    this.length = 0;
    this.stamp = stamp;
  }
}

function assertionHolds(what: Assertion, text: string, pos: number): boolean {
  const len = text.length;
  switch (what) {
    case 'text_start':
      return pos === 0;
    case 'line_start':
    case 'line_start_unix': {
      if (pos === 0) return true;
      // Java (as Perl) has no line start at the end of the text, nor between \r and \n.
      if (pos === len) return false;
      const prev = text.charCodeAt(pos - 1);
      if (!isLineTerminator(prev, what === 'line_start_unix')) return false;
      return !(prev === 0x0d && text.charCodeAt(pos) === 0x0a && what === 'line_start');
    }
    case 'text_end':
      return pos === len;
    case 'text_end_or_final_terminator': {
      if (pos === len) return true;
      const c = text.charCodeAt(pos);
      if (pos === len - 2) return c === 0x0d && text.charCodeAt(pos + 1) === 0x0a;
      if (pos !== len - 1 || !isLineTerminator(c, false)) return false;
      return !(c === 0x0a && pos > 0 && text.charCodeAt(pos - 1) === 0x0d);
    }
    case 'text_end_or_final_newline_unix':
      return pos === len || (pos === len - 1 && text.charCodeAt(pos) === 0x0a);
    case 'line_end':
    case 'line_end_unix': {
      if (pos === len) return true;
      const c = text.charCodeAt(pos);
      if (!isLineTerminator(c, what === 'line_end_unix')) return false;
      return !(what === 'line_end' && c === 0x0a && pos > 0 && text.charCodeAt(pos - 1) === 0x0d);
    }
    case 'word_boundary':
    case 'not_word_boundary': {
      const before = pos > 0 && isJavaWordChar(text.codePointAt(pos - 1 - (pos >= 2 && isLowSurrogateAt(text, pos - 1) ? 1 : 0))!);
      const after = pos < len && isJavaWordChar(text.codePointAt(pos)!);
      return (before !== after) === (what === 'word_boundary');
    }
  }
}

/**
 * A lookahead tries its body from pos; a lookbehind tries it from each start
 * between maxLength and minLength code points back, ending at pos. Bodies are
 * bounded (the parser refuses longer ones), so this is a bounded cost per
 * position.
 */
function lookaroundHolds(look: Lookaround, text: string, pos: number): boolean {
  let found = false;
  if (look.ahead) {
    found = runBounds(look.program, text, pos, { anchored: true, toEnd: false, groups: false }) !== null;
  } else {
    let start = pos;
    for (let k = 0; k <= look.maxLength && !found; k++) {
      if (k > 0) {
        if (start === 0) break;
        start -= start >= 2 && isLowSurrogateAt(text, start - 1) ? 2 : 1;
      }
      if (k >= look.minLength) found = runBounds(look.program, text, start, { anchored: true, toEnd: true, groups: false, endAt: pos }) !== null;
    }
  }
  return found !== look.negate;
}

function isLowSurrogateAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff) return false;
  const h = text.charCodeAt(i - 1);
  return h >= 0xd800 && h <= 0xdbff;
}

/** Stamps tell this step's list membership from older ones; the lists are reused by later runs, so they are never reused. */
let stampCounter = 0;

function nextStamp(a: ThreadList, b: ThreadList): number {
  if (stampCounter === 0x7fffffff) {
    stampCounter = 0;
    a.mark.fill(-1);
    b.mark.fill(-1);
  }
  return stampCounter++;
}

export interface MatchOptions {
  /** Only a match starting at `from` (Matcher.lookingAt / matches). */
  readonly anchored: boolean;
  /** Only a match ending at the end of the text (Matcher.matches). */
  readonly toEnd: boolean;
  /** Whether the groups are wanted (a second, anchored run finds them). */
  readonly groups: boolean;
  /** Only a match ending exactly here (a lookbehind's body); the text after it is not read. */
  readonly endAt?: number;
}

/**
 * The first match at or after `from` (UTF-16 index), as capture slots
 * [start0, end0, start1, end1, ...] (-1 where a group took no part), or null.
 */
export function runProgram(prog: Program, text: string, from: number, opts: MatchOptions): Int32Array | null {
  const bounds = runBounds(prog, text, from, opts);
  if (bounds === null || prog.slots === 2 || !opts.groups) return bounds;
  // The groups of that match: the same program anchored at its start and ending at its end finds the same path.
  return runWithGroups(prog, text, bounds[0]!, bounds[1]!);
}

/** Follows jumps, splits, saves and assertions from pc at pos, adding the threads that wait for a character (or match) in priority order. */
function followBounds(prog: Program, list: ThreadList, pc0: number, start: number, text: string, pos: number): void {
  const { code, stack } = prog;
  let sp = 0;
  stack[sp++] = pc0;
  while (sp > 0) {
    const pc = stack[--sp]!;
    if (list.mark[pc] === list.stamp) continue;
    list.mark[pc] = list.stamp;
    const at = pc * 3;
    switch (code[at] as Op) {
      case Op.Jump:
        stack[sp++] = code[at + 1]!;
        break;
      case Op.Split:
        // The second branch is pushed first, so the first is followed first (its priority).
        stack[sp++] = code[at + 2]!;
        stack[sp++] = code[at + 1]!;
        break;
      case Op.Save:
        stack[sp++] = pc + 1;
        break;
      case Op.Assert:
        if (assertionHolds(ASSERTIONS[code[at + 1]!]!, text, pos)) stack[sp++] = pc + 1;
        break;
      case Op.Look:
        if (lookaroundHolds(prog.looks[code[at + 1]!]!, text, pos)) stack[sp++] = pc + 1;
        break;
      default:
        list.pcs[list.length] = pc;
        list.starts[list.length] = start;
        list.length++;
    }
  }
}

/**
 * Where the first match starts and ends, without groups: each thread carries
 * only its start, so nothing is allocated per character.
 */
function runBounds(prog: Program, text: string, from: number, opts: MatchOptions): Int32Array | null {
  const { code, sets, first } = prog;
  const size = code.length / 3;
  prog.scratch ??= [new ThreadList(size), new ThreadList(size)];
  let [clist, nlist] = prog.scratch;
  const len = opts.endAt ?? text.length;
  let matchStart = -1;
  let matchEnd = -1;

  clist.clear(nextStamp(clist, nlist));
  for (let pos = from; pos <= len; ) {
    if (clist.length === 0 && matchStart < 0 && first !== null && !opts.anchored) {
      while (pos < len) {
        const c = text.codePointAt(pos)!;
        if (first.has(c)) break;
        pos += c > 0xffff ? 2 : 1;
      }
      if (pos >= len) break;
    }
    if (matchStart < 0 && (!opts.anchored || pos === from)) followBounds(prog, clist, 0, pos, text, pos);
    if (clist.length === 0 && (matchStart >= 0 || opts.anchored)) break;
    const cp = pos < len ? text.codePointAt(pos)! : -1;
    const next = pos + (cp > 0xffff ? 2 : 1);
    nlist.clear(nextStamp(clist, nlist));
    for (let i = 0; i < clist.length; i++) {
      const at = clist.pcs[i]! * 3;
      let ok = false;
      switch (code[at] as Op) {
        case Op.Match:
          if (opts.toEnd && pos !== len) break;
          matchStart = clist.starts[i]!;
          matchEnd = pos;
          i = clist.length;
          break;
        case Op.Char1:
          ok = cp === code[at + 1];
          break;
        case Op.Char2:
          ok = cp === code[at + 1] || cp === code[at + 2];
          break;
        case Op.Set:
          ok = cp >= 0 && sets[code[at + 1]!]!.has(cp);
          break;
      }
      if (ok) followBounds(prog, nlist, clist.pcs[i]! + 1, clist.starts[i]!, text, next);
    }
    [clist, nlist] = [nlist, clist];
    if (pos >= len) break;
    pos = next;
  }
  clist.length = 0;
  if (matchStart < 0) return null;
  const out = new Int32Array(prog.slots).fill(-1);
  out[0] = matchStart;
  out[1] = matchEnd;
  return out;
}

const groupStack: number[] = [];
const groupStackCaps: Int32Array[] = [];

/** followBounds with the captures: a Save copies the thread's slots (copy on write). */
function followGroups(prog: Program, list: ThreadList, pc0: number, caps0: Int32Array, text: string, pos: number): void {
  const code = prog.code;
  const stack = groupStack;
  const stackCaps = groupStackCaps;
  stack.push(pc0);
  stackCaps.push(caps0);
  while (stack.length > 0) {
    const pc = stack.pop()!;
    const caps = stackCaps.pop()!;
    if (list.mark[pc] === list.stamp) continue;
    list.mark[pc] = list.stamp;
    const at = pc * 3;
    switch (code[at] as Op) {
      case Op.Jump:
        stack.push(code[at + 1]!);
        stackCaps.push(caps);
        break;
      case Op.Split:
        stack.push(code[at + 2]!, code[at + 1]!);
        stackCaps.push(caps, caps);
        break;
      case Op.Save: {
        const copy = caps.slice();
        copy[code[at + 1]!] = pos;
        stack.push(pc + 1);
        stackCaps.push(copy);
        break;
      }
      case Op.Assert:
        // Assertions see the whole text, not only the match.
        if (assertionHolds(ASSERTIONS[code[at + 1]!]!, text, pos)) {
          stack.push(pc + 1);
          stackCaps.push(caps);
        }
        break;
      case Op.Look:
        if (lookaroundHolds(prog.looks[code[at + 1]!]!, text, pos)) {
          stack.push(pc + 1);
          stackCaps.push(caps);
        }
        break;
      default:
        list.pcs[list.length] = pc;
        list.caps[list.length] = caps;
        list.length++;
    }
  }
}

/** The groups of the match from `start` to `end` (known to exist). */
function runWithGroups(prog: Program, text: string, start: number, end: number): Int32Array | null {
  const { code, sets, slots } = prog;
  const size = code.length / 3;
  prog.scratch ??= [new ThreadList(size), new ThreadList(size)];
  let [clist, nlist] = prog.scratch;
  let matched: Int32Array | null = null;
  clist.clear(nextStamp(clist, nlist));
  followGroups(prog, clist, 0, new Int32Array(slots).fill(-1), text, start);
  for (let pos = start; pos <= end && clist.length > 0; ) {
    const cp = pos < end ? text.codePointAt(pos)! : -1;
    const next = pos + (cp > 0xffff ? 2 : 1);
    nlist.clear(nextStamp(clist, nlist));
    for (let i = 0; i < clist.length; i++) {
      const pc = clist.pcs[i]!;
      const caps = clist.caps[i]!;
      const at = pc * 3;
      let ok = false;
      switch (code[at] as Op) {
        case Op.Match:
          if (pos !== end) break;
          matched = caps;
          // Threads after this one have lower priority: drop them.
          i = clist.length;
          break;
        case Op.Char1:
          ok = cp === code[at + 1];
          break;
        case Op.Char2:
          ok = cp === code[at + 1] || cp === code[at + 2];
          break;
        case Op.Set:
          ok = cp >= 0 && sets[code[at + 1]!]!.has(cp);
          break;
      }
      if (ok) followGroups(prog, nlist, pc + 1, caps, text, next);
    }
    clist.caps.fill(null, 0, clist.length);
    [clist, nlist] = [nlist, clist];
    if (pos >= end) break;
    pos = next;
  }
  clist.caps.fill(null, 0, clist.length);
  clist.length = 0;
  return matched;
}
