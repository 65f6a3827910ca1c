/** Small readers of analysis output for the analysis tests: terms, `term@position[start,end]<type>` lines, EsError checks. */

import assert from 'node:assert/strict';

import { EsError } from '../../../shared/errors/es-errors.ts';
import { runAnalyze } from '../../../shared/engine/analysis/analyze-request.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { Token } from '../../../shared/engine/analysis/types.ts';

/** Tokens of an `_analyze` body: against the built-ins (no index), or against an index's registry. */
export function analyzeTokens(body: Record<string, unknown>, registry = AnalysisRegistry.builtins): Token[] {
  const res = runAnalyze(body, { registry, indexScoped: registry !== AnalysisRegistry.builtins });
  if (res.tokens === undefined) throw new Error('expected tokens, got detail');
  return res.tokens;
}

export function termsOf(tokens: readonly Token[]): string[] {
  return tokens.map((t) => t.token);
}

/** `term@position[start,end]type` for every token, for exact position/offset/type assertions. */
export function detailed(tokens: readonly Token[]): string[] {
  return tokens.map((t) => `${t.token}@${t.position}[${t.start_offset},${t.end_offset}]${t.type}`);
}

export function terms(body: Record<string, unknown>, registry = AnalysisRegistry.builtins): string[] {
  return termsOf(analyzeTokens(body, registry));
}

/** Asserts that `fn` throws an EsError with exactly this type, reason and status. */
export function assertEsError(fn: () => unknown, type: string, reason: string, status = 400): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof EsError, `expected an EsError, got ${String(err)}`);
    assert.equal(err.type, type);
    assert.equal(err.reason, reason);
    assert.equal(err.status, status);
    return true;
  });
}
