/**
 * Parses the supported subset of Painless (Elasticsearch 6.8's scripting
 * language) into a syntax tree. The subset is what updates, by-query
 * requests, reindex scripts and script fields use in practice:
 *
 * - statements: declarations (`def`, `int`, `long`, `double`, `float`,
 *   `boolean`, `String`, `List`, `Map`, ...), `if`/`else`, blocks,
 *   `for (init; cond; update)`, `for (x : list)` / `for (x in list)`, `while`,
 *   `do`/`while`, `break`, `continue`, `return`;
 * - expressions: literals, `params`, `ctx`, `doc`, variables, field and
 *   index access (`ctx._source.tags[0]`, `map['k']`, `?.`), method calls on
 *   maps, lists, strings and numbers, `Math`/`Integer`/`Long`/`Double`/
 *   `String`/`Boolean`/`Objects` statics, `new ArrayList()`/`new HashMap()`,
 *   list and map literals, lambdas (`t -> t == params.tag`), casts,
 *   arithmetic, comparison, logic, `?:`, `instanceof`, assignment and
 *   compound assignment, `++`/`--`.
 *
 * Anything else (function definitions, regexes, arrays, other classes) is a
 * compile error that names the position and says what is supported. Loops
 * are bounded when the script runs (interpreter.ts), as Painless bounds them.
 */
import { scriptCompileError } from '../../errors/es-errors.ts';
import type { Expr, Stmt } from './ast.ts';
import { tokenize, type Token } from './lexer.ts';

/** Type names a declaration or cast may use. */
export const TYPE_NAMES: ReadonlySet<string> = new Set([
  'def', 'int', 'long', 'short', 'byte', 'char', 'float', 'double', 'boolean', 'String', 'Object', 'Number',
  'List', 'ArrayList', 'Map', 'HashMap', 'LinkedHashMap', 'Collection', 'Integer', 'Long', 'Double', 'Float', 'Boolean',
]);

/** Classes whose static members a script may use. */
export const STATIC_CLASSES: ReadonlySet<string> = new Set(['Math', 'Integer', 'Long', 'Double', 'Float', 'String', 'Boolean', 'Objects', 'Character']);

/** Classes a script may instantiate. */
export const NEW_CLASSES: ReadonlySet<string> = new Set(['ArrayList', 'HashMap', 'LinkedHashMap']);

const REGEX_DISABLED =
  "Regexes are disabled. Set [script.painless.regex.enabled] to [true] in elasticsearch.yaml to allow them. Be careful though, regexes break out of Painless's protection against deep recursion and long loops.";

/** Nesting deeper than this is refused: a hostile script must not exhaust the stack. */
const MAX_DEPTH = 128;

const SUPPORTED_HINT =
  'supported: declarations, if/else, for, for-each, while, do/while, break, continue, return, field and index access, ' +
  'calls on maps, lists, strings and numbers, Math/Integer/Long/Double/String/Boolean/Objects statics, new ArrayList()/HashMap(), ' +
  'list and map literals, lambdas, casts, arithmetic, comparison, logic, ?:, instanceof, assignment, ++ and --';

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=']);

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly toks: readonly Token[],
    private readonly src: string,
  ) {}

  private peek(ahead = 0): Token {
    return this.toks[Math.min(this.i + ahead, this.toks.length - 1)]!;
  }

  private next(): Token {
    return this.toks[this.i++]!;
  }

  private isOp(v: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.t === 'op' && t.v === v;
  }

  private isId(v: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.t === 'id' && t.v === v;
  }

  private expect(v: string): Token {
    const t = this.next();
    if (t.t !== 'op' || t.v !== v) this.fail(t, `unexpected token [${t.v}] was expecting one of [${v}]`);
    return t;
  }

  private ident(): Token {
    const t = this.next();
    if (t.t !== 'id') this.fail(t, `unexpected token [${t.v}] was expecting an identifier`);
    return t;
  }

  fail(t: Token, cause: string): never {
    throw scriptCompileError(this.src, t.pos, cause);
  }

  private enter(t: Token): void {
    if (++this.depth > MAX_DEPTH) this.fail(t, `the script nests deeper than [${MAX_DEPTH}] levels`);
  }

  program(): Stmt[] {
    const out: Stmt[] = [];
    while (this.peek().t !== 'eof') out.push(this.statement());
    return out;
  }

  /** A statement's end: `;`, or nothing before `}` and the end of the script. */
  private endStatement(): void {
    if (this.isOp(';')) {
      this.next();
      return;
    }
    const t = this.peek();
    if (t.t === 'eof' || (t.t === 'op' && t.v === '}')) return;
    this.fail(t, `unexpected token [${t.v}] was expecting one of [;]`);
  }

  private isDeclaration(): boolean {
    const t = this.peek();
    return t.t === 'id' && TYPE_NAMES.has(t.v) && this.peek(1).t === 'id' && !this.isOp('.', 1);
  }

  statement(): Stmt {
    const t = this.peek();
    this.enter(t);
    try {
      return this.statementInner(t);
    } finally {
      this.depth--;
    }
  }

  private statementInner(t: Token): Stmt {
    if (t.t === 'op' && t.v === '{') return this.block();
    if (t.t === 'op' && t.v === ';') {
      this.next();
      return { k: 'empty', pos: t.pos };
    }
    if (t.t === 'id') {
      switch (t.v) {
        case 'if': {
          this.next();
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          const then = this.statement();
          let otherwise: Stmt | null = null;
          if (this.isId('else')) {
            this.next();
            otherwise = this.statement();
          }
          return { k: 'if', pos: t.pos, c, then, else: otherwise };
        }
        case 'while': {
          this.next();
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          return { k: 'while', pos: t.pos, c, body: this.statement() };
        }
        case 'do': {
          this.next();
          const body = this.statement();
          if (!this.isId('while')) this.fail(this.peek(), `unexpected token [${this.peek().v}] was expecting one of [while]`);
          this.next();
          this.expect('(');
          const c = this.expr();
          this.expect(')');
          this.endStatement();
          return { k: 'do', pos: t.pos, c, body };
        }
        case 'for':
          return this.forStatement();
        case 'return': {
          this.next();
          const n = this.peek();
          const e = n.t === 'eof' || (n.t === 'op' && (n.v === ';' || n.v === '}')) ? null : this.expr();
          this.endStatement();
          return { k: 'return', pos: t.pos, e };
        }
        case 'break':
        case 'continue':
          this.next();
          this.endStatement();
          return { k: t.v, pos: t.pos };
        case 'try':
        case 'throw':
          this.fail(t, `[${t.v}] is not supported; ${SUPPORTED_HINT}`);
      }
      if (this.isDeclaration()) {
        if (this.isOp('(', 2)) this.fail(t, `function definitions are not supported; ${SUPPORTED_HINT}`);
        const d = this.declaration();
        this.endStatement();
        return d;
      }
      if (TYPE_NAMES.has(t.v) && this.isOp('[', 1) && this.isOp(']', 2)) this.fail(t, `arrays are not supported; use a List (${SUPPORTED_HINT})`);
    }
    const e = this.expr();
    this.endStatement();
    return { k: 'expr', pos: t.pos, e };
  }

  private block(): Stmt {
    const open = this.expect('{');
    const body: Stmt[] = [];
    while (!this.isOp('}')) {
      if (this.peek().t === 'eof') this.fail(this.peek(), 'unexpected end of script was expecting one of [}]');
      body.push(this.statement());
    }
    this.next();
    return { k: 'block', pos: open.pos, body };
  }

  private declaration(): Stmt {
    const typeTok = this.next();
    const vars: { name: string; pos: number; init: Expr | null }[] = [];
    for (;;) {
      const name = this.ident();
      let init: Expr | null = null;
      if (this.isOp('=')) {
        this.next();
        init = this.expr();
      }
      vars.push({ name: name.v, pos: name.pos, init });
      if (!this.isOp(',')) break;
      this.next();
    }
    return { k: 'decl', pos: typeTok.pos, type: typeTok.v, vars };
  }

  private forStatement(): Stmt {
    const t = this.next();
    this.expect('(');
    // for (Type x : e), for (x in e), for (def x in e)
    const typed = this.peek().t === 'id' && TYPE_NAMES.has(this.peek().v) && this.peek(1).t === 'id';
    const nameAt = typed ? 1 : 0;
    if (this.peek(nameAt).t === 'id' && (this.isOp(':', nameAt + 1) || this.isId('in', nameAt + 1))) {
      if (typed) this.next();
      const name = this.ident();
      this.next();
      const iterable = this.expr();
      this.expect(')');
      return { k: 'foreach', pos: t.pos, name: name.v, iterable, body: this.statement() };
    }
    let init: Stmt | null = null;
    if (!this.isOp(';')) {
      const at = this.peek();
      init = this.isDeclaration() ? this.declaration() : { k: 'expr', pos: at.pos, e: this.expr() };
    }
    this.expect(';');
    const c = this.isOp(';') ? null : this.expr();
    this.expect(';');
    const update: Expr[] = [];
    while (!this.isOp(')')) {
      update.push(this.expr());
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect(')');
    return { k: 'for', pos: t.pos, init, c, update, body: this.statement() };
  }

  expr(): Expr {
    const t = this.peek();
    this.enter(t);
    try {
      return this.assignment();
    } finally {
      this.depth--;
    }
  }

  private assignment(): Expr {
    const left = this.ternary();
    const t = this.peek();
    if (t.t === 'op' && ASSIGN_OPS.has(t.v)) {
      if (left.k !== 'var' && left.k !== 'field' && left.k !== 'index') this.fail(t, 'invalid assignment target');
      this.next();
      const value = this.expr();
      return { k: 'assign', pos: t.pos, op: t.v, target: left, value };
    }
    if (t.t === 'op' && (t.v === '<<=' || t.v === '>>=' || t.v === '>>>=')) this.fail(t, `shift operators are not supported; ${SUPPORTED_HINT}`);
    return left;
  }

  private ternary(): Expr {
    const c = this.or();
    if (this.isOp('?')) {
      const q = this.next();
      const a = this.expr();
      this.expect(':');
      const b = this.expr();
      return { k: 'cond', pos: q.pos, c, t: a, f: b };
    }
    if (this.isOp('?:')) {
      const q = this.next();
      return { k: 'elvis', pos: q.pos, l: c, r: this.expr() };
    }
    return c;
  }

  private or(): Expr {
    let l = this.and();
    while (this.isOp('||')) {
      const t = this.next();
      l = { k: 'or', pos: t.pos, l, r: this.and() };
    }
    return l;
  }

  private and(): Expr {
    let l = this.bitOr();
    while (this.isOp('&&')) {
      const t = this.next();
      l = { k: 'and', pos: t.pos, l, r: this.bitOr() };
    }
    return l;
  }

  private bitOr(): Expr {
    let l = this.bitXor();
    while (this.isOp('|')) {
      const t = this.next();
      l = { k: 'bin', pos: t.pos, op: '|', l, r: this.bitXor() };
    }
    return l;
  }

  private bitXor(): Expr {
    let l = this.bitAnd();
    while (this.isOp('^')) {
      const t = this.next();
      l = { k: 'bin', pos: t.pos, op: '^', l, r: this.bitAnd() };
    }
    return l;
  }

  private bitAnd(): Expr {
    let l = this.equality();
    while (this.isOp('&')) {
      const t = this.next();
      l = { k: 'bin', pos: t.pos, op: '&', l, r: this.equality() };
    }
    return l;
  }

  private equality(): Expr {
    let l = this.relational();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op') return l;
      if (t.v === '=~' || (t.v === '==' && this.isOp('~', 1))) this.fail(t, REGEX_DISABLED);
      if (t.v !== '==' && t.v !== '!=' && t.v !== '===' && t.v !== '!==') return l;
      this.next();
      l = { k: 'bin', pos: t.pos, op: t.v, l, r: this.relational() };
    }
  }

  private relational(): Expr {
    let l = this.shift();
    for (;;) {
      const t = this.peek();
      if (t.t === 'id' && t.v === 'instanceof') {
        this.next();
        const type = this.ident();
        l = { k: 'instanceof', pos: t.pos, e: l, type: type.v };
        continue;
      }
      if (t.t !== 'op' || (t.v !== '<' && t.v !== '<=' && t.v !== '>' && t.v !== '>=')) return l;
      this.next();
      l = { k: 'bin', pos: t.pos, op: t.v, l, r: this.shift() };
    }
  }

  private shift(): Expr {
    const l = this.additive();
    const t = this.peek();
    if (t.t === 'op' && (t.v === '<<' || t.v === '>>' || t.v === '>>>')) this.fail(t, `shift operators are not supported; ${SUPPORTED_HINT}`);
    return l;
  }

  private additive(): Expr {
    let l = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op' || (t.v !== '+' && t.v !== '-')) return l;
      this.next();
      l = { k: 'bin', pos: t.pos, op: t.v, l, r: this.multiplicative() };
    }
  }

  private multiplicative(): Expr {
    let l = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op' || (t.v !== '*' && t.v !== '/' && t.v !== '%')) return l;
      this.next();
      l = { k: 'bin', pos: t.pos, op: t.v, l, r: this.unary() };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    this.enter(t);
    try {
      if (t.t === 'op') {
        if (t.v === '!' || t.v === '-' || t.v === '+' || t.v === '~') {
          this.next();
          const e = this.unary();
          // A negative literal stays a literal (Integer.MIN_VALUE parses).
          if (t.v === '-' && e.k === 'lit' && typeof e.v === 'number') return { k: 'lit', pos: t.pos, v: -e.v, int: e.int };
          return { k: 'unary', pos: t.pos, op: t.v, e };
        }
        if (t.v === '++' || t.v === '--') {
          this.next();
          const target = this.unary();
          if (target.k !== 'var' && target.k !== 'field' && target.k !== 'index') this.fail(t, 'invalid increment target');
          return { k: 'incdec', pos: t.pos, op: t.v, prefix: true, target };
        }
        if (t.v === '(' && this.peek(1).t === 'id' && TYPE_NAMES.has(this.peek(1).v) && this.isOp(')', 2) && !this.isOp('->', 3)) {
          this.next();
          const type = this.next().v;
          this.next();
          return { k: 'cast', pos: t.pos, type, e: this.unary() };
        }
      }
      return this.postfix();
    } finally {
      this.depth--;
    }
  }

  private args(): Expr[] {
    this.expect('(');
    const out: Expr[] = [];
    while (!this.isOp(')')) {
      out.push(this.lambdaOrExpr());
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect(')');
    return out;
  }

  /** A call argument: a lambda (`x -> ...`, `(x, y) -> ...`, `(def x) -> ...`) or an expression. */
  private lambdaOrExpr(): Expr {
    const t = this.peek();
    if (t.t === 'id' && this.isOp('->', 1)) {
      this.next();
      this.next();
      return { k: 'lambda', pos: t.pos, params: [t.v], body: this.lambdaBody() };
    }
    if (t.t === 'op' && t.v === '(') {
      // Look for `( [type] id {, [type] id} ) ->`.
      let j = 1;
      const params: string[] = [];
      let ok = true;
      while (!this.isOp(')', j)) {
        if (this.peek(j).t === 'id' && TYPE_NAMES.has(this.peek(j).v) && this.peek(j + 1).t === 'id') j++;
        if (this.peek(j).t !== 'id') {
          ok = false;
          break;
        }
        params.push(this.peek(j).v);
        j++;
        if (this.isOp(',', j)) j++;
        else if (!this.isOp(')', j)) {
          ok = false;
          break;
        }
      }
      if (ok && this.isOp('->', j + 1)) {
        this.i += j + 2;
        return { k: 'lambda', pos: t.pos, params, body: this.lambdaBody() };
      }
    }
    return this.expr();
  }

  private lambdaBody(): Stmt {
    if (this.isOp('{')) return this.block();
    const at = this.peek();
    return { k: 'return', pos: at.pos, e: this.expr() };
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op') return e;
      if (t.v === '.' || t.v === '?.') {
        this.next();
        const name = this.ident();
        if (this.isOp('(')) e = { k: 'call', pos: name.pos, obj: e, name: name.v, args: this.args(), nullSafe: t.v === '?.' };
        else e = { k: 'field', pos: name.pos, obj: e, name: name.v, nullSafe: t.v === '?.' };
      } else if (t.v === '[') {
        this.next();
        const key = this.expr();
        this.expect(']');
        e = { k: 'index', pos: t.pos, obj: e, key };
      } else if (t.v === '++' || t.v === '--') {
        if (e.k !== 'var' && e.k !== 'field' && e.k !== 'index') return e;
        this.next();
        e = { k: 'incdec', pos: t.pos, op: t.v, prefix: false, target: e };
      } else if (t.v === '::') {
        this.fail(t, `method references are not supported; use a lambda (${SUPPORTED_HINT})`);
      } else {
        return e;
      }
    }
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.t) {
      case 'num':
        return { k: 'lit', pos: t.pos, v: t.num!, int: t.int };
      case 'str':
        return { k: 'lit', pos: t.pos, v: t.v };
      case 'id':
        return this.identifier(t);
      case 'op':
        if (t.v === '(') {
          const e = this.expr();
          this.expect(')');
          return e;
        }
        if (t.v === '[') return this.collectionLiteral(t);
        if (t.v === '/') this.fail(t, REGEX_DISABLED);
        return this.fail(t, `unexpected token [${t.v}]; ${SUPPORTED_HINT}`);
      case 'eof':
        return this.fail(t, 'unexpected end of script');
    }
  }

  private identifier(t: Token): Expr {
    switch (t.v) {
      case 'true':
        return { k: 'lit', pos: t.pos, v: true };
      case 'false':
        return { k: 'lit', pos: t.pos, v: false };
      case 'null':
        return { k: 'lit', pos: t.pos, v: null };
      case 'new': {
        const cls = this.ident();
        if (!NEW_CLASSES.has(cls.v)) this.fail(cls, `cannot create [${cls.v}]: only new ArrayList(), new HashMap() and new LinkedHashMap() are supported`);
        return { k: 'new', pos: t.pos, cls: cls.v, args: this.args() };
      }
    }
    if (STATIC_CLASSES.has(t.v) && this.isOp('.')) {
      this.next();
      const name = this.ident();
      return { k: 'static', pos: name.pos, cls: t.v, name: name.v, args: this.isOp('(') ? this.args() : null };
    }
    return { k: 'var', pos: t.pos, name: t.v };
  }

  private collectionLiteral(open: Token): Expr {
    if (this.isOp(':') && this.isOp(']', 1)) {
      this.next();
      this.next();
      return { k: 'map', pos: open.pos, entries: [] };
    }
    if (this.isOp(']')) {
      this.next();
      return { k: 'list', pos: open.pos, items: [] };
    }
    const first = this.expr();
    if (this.isOp(':')) {
      this.next();
      const entries: [Expr, Expr][] = [[first, this.expr()]];
      while (this.isOp(',')) {
        this.next();
        const k = this.expr();
        this.expect(':');
        entries.push([k, this.expr()]);
      }
      this.expect(']');
      return { k: 'map', pos: open.pos, entries };
    }
    const items = [first];
    while (this.isOp(',')) {
      this.next();
      items.push(this.expr());
    }
    this.expect(']');
    return { k: 'list', pos: open.pos, items };
  }
}

/** The statements of `src`, or a compile error (script_exception) naming the position. */
export function parseScript(src: string): Stmt[] {
  return new Parser(tokenize(src), src).program();
}
