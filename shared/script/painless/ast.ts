/**
 * The syntax tree of a Painless script of the supported subset. Every node
 * keeps its source position, so a runtime error points at the expression
 * that failed, as Painless's script_stack does.
 */

export type Expr =
  | { readonly k: 'lit'; readonly pos: number; readonly v: null | boolean | number | string; readonly int?: boolean }
  | { readonly k: 'var'; readonly pos: number; readonly name: string }
  | { readonly k: 'field'; readonly pos: number; readonly obj: Expr; readonly name: string; readonly nullSafe: boolean }
  | { readonly k: 'index'; readonly pos: number; readonly obj: Expr; readonly key: Expr }
  | { readonly k: 'call'; readonly pos: number; readonly obj: Expr; readonly name: string; readonly args: readonly Expr[]; readonly nullSafe: boolean }
  | { readonly k: 'static'; readonly pos: number; readonly cls: string; readonly name: string; readonly args: readonly Expr[] | null }
  | { readonly k: 'new'; readonly pos: number; readonly cls: string; readonly args: readonly Expr[] }
  | { readonly k: 'list'; readonly pos: number; readonly items: readonly Expr[] }
  | { readonly k: 'map'; readonly pos: number; readonly entries: readonly (readonly [Expr, Expr])[] }
  | { readonly k: 'unary'; readonly pos: number; readonly op: '!' | '-' | '+' | '~'; readonly e: Expr }
  | { readonly k: 'cast'; readonly pos: number; readonly type: string; readonly e: Expr }
  | { readonly k: 'bin'; readonly pos: number; readonly op: string; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'and' | 'or'; readonly pos: number; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'cond'; readonly pos: number; readonly c: Expr; readonly t: Expr; readonly f: Expr }
  | { readonly k: 'elvis'; readonly pos: number; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'instanceof'; readonly pos: number; readonly e: Expr; readonly type: string }
  | { readonly k: 'assign'; readonly pos: number; readonly op: string; readonly target: Expr; readonly value: Expr }
  | { readonly k: 'incdec'; readonly pos: number; readonly op: '++' | '--'; readonly prefix: boolean; readonly target: Expr }
  | { readonly k: 'lambda'; readonly pos: number; readonly params: readonly string[]; readonly body: Stmt };

export type Stmt =
  | { readonly k: 'expr'; readonly pos: number; readonly e: Expr }
  | { readonly k: 'decl'; readonly pos: number; readonly type: string; readonly vars: readonly { readonly name: string; readonly pos: number; readonly init: Expr | null }[] }
  | { readonly k: 'block'; readonly pos: number; readonly body: readonly Stmt[] }
  | { readonly k: 'if'; readonly pos: number; readonly c: Expr; readonly then: Stmt; readonly else: Stmt | null }
  | { readonly k: 'while'; readonly pos: number; readonly c: Expr; readonly body: Stmt }
  | { readonly k: 'do'; readonly pos: number; readonly c: Expr; readonly body: Stmt }
  | { readonly k: 'for'; readonly pos: number; readonly init: Stmt | null; readonly c: Expr | null; readonly update: readonly Expr[]; readonly body: Stmt }
  | { readonly k: 'foreach'; readonly pos: number; readonly name: string; readonly iterable: Expr; readonly body: Stmt }
  | { readonly k: 'return'; readonly pos: number; readonly e: Expr | null }
  | { readonly k: 'break' | 'continue'; readonly pos: number }
  | { readonly k: 'empty'; readonly pos: number };
