/**
 * token_count and alias mappings as Elasticsearch 6.8 parses, prints and
 * merges them; token counting under an analyzer (positions, stacked
 * synonyms); `join` refused as on a node without the parent-join module.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, type EsError } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { countTokens } from '../../../shared/engine/segment/token-count.ts';

function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}
const reason = (e: EsError): string => (e.type === 'mapper_parsing_exception' && e.causedBy ? e.causedBy.reason : e.reason);

describe('token_count mappings', () => {
  it('is an integer field of counts, with its analyzer and options', () => {
    const m = Mapping.fromJSON('_doc', { properties: { n: { type: 'token_count', analyzer: 'standard', enable_position_increments: false, null_value: '3', store: true } } });
    const f = m.field('n')!;
    assert.equal(f.type, 'integer');
    assert.equal(f.mappedType, 'integer');
    assert.equal(f.analyzer, 'standard');
    assert.deepEqual(f.tokenCount, { enablePositionIncrements: false });
    assert.equal(f.nullValue, 3);
    assert.deepEqual(m.toJSON(), {
      properties: { n: { type: 'token_count', store: true, analyzer: 'standard', enable_position_increments: false, null_value: 3 } },
    });
  });

  it('parses documents to the texts the segment builder counts, null to null_value', () => {
    const m = Mapping.fromJSON('_doc', { properties: { n: { type: 'token_count', analyzer: 'standard', null_value: 0 } } });
    assert.deepEqual(m.parse({ n: ['a b', 42, true] }).fields[0]!.values, ['a b', '42', 'true']);
    assert.deepEqual(m.parse({ n: null }).fields[0]!.values, [0]);
  });

  it('needs an analyzer that exists and refuses what Elasticsearch refuses', () => {
    const opts = { analyzerExists: (n: string) => n === 'standard' };
    assert.equal(reason(failure(() => Mapping.fromJSON('_doc', { properties: { n: { type: 'token_count', store: true } } }, opts))), "Analyzer must be set for field [n] but wasn't.");
    assert.equal(reason(failure(() => Mapping.fromJSON('_doc', { properties: { n: { type: 'token_count', analyzer: 'x' } } }, opts))), 'Analyzer [x] not found for field [n]');
    assert.equal(
      reason(failure(() => Mapping.fromJSON('_doc', { properties: { n: { type: 'token_count', analyzer: 'standard', ignore_malformed: true } } }, opts))),
      'Mapping definition for [n] has unsupported parameters:  [ignore_malformed : true]',
    );
  });
});

describe('countTokens', () => {
  const registry = AnalysisRegistry.fromIndexSettings({
    filter: { syn: { type: 'synonym', synonyms: ['quick, fast'] } },
    analyzer: { syn: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'syn'] } },
  });
  it('counts positions, or tokens once each without position increments', () => {
    const english = registry.get('english')!;
    assert.equal(countTokens('the king of the hill', english, { enablePositionIncrements: true }), 5);
    assert.equal(countTokens('the king of the hill', english, { enablePositionIncrements: false }), 2);
    assert.equal(countTokens('', english, { enablePositionIncrements: true }), 0);
  });
  it('counts synonyms stacked on one position once', () => {
    const syn = registry.get('syn')!;
    assert.equal(countTokens('quick brown fox', syn, { enablePositionIncrements: false }), 3);
    assert.equal(countTokens('quick brown fox', syn, { enablePositionIncrements: true }), 3);
  });
});

describe('alias mappings', () => {
  const base = { properties: { d: { type: 'long' }, a: { type: 'alias', path: 'd' }, o: { properties: { k: { type: 'keyword' } } } } };

  it('resolve to their target; patterns list them; printed as type and path', () => {
    const m = Mapping.fromJSON('_doc', base);
    assert.equal(m.field('a')!.path, 'd');
    assert.deepEqual(m.matchingFields('*'), ['a', 'd', 'o.k']);
    assert.deepEqual(m.aliasNames(), ['a']);
    assert.deepEqual((m.toJSON().properties as Record<string, unknown>).a, { type: 'alias', path: 'd' });
  });

  it('count against the total fields limit', () => {
    // 12 metadata mappers + d + a + o + o.k
    Mapping.fromJSON('_doc', base, { totalFieldsLimit: 16 });
    assert.equal(failure(() => Mapping.fromJSON('_doc', base, { totalFieldsLimit: 15 })).reason, 'Limit of total fields [15] in index [_na_] has been exceeded');
  });

  it('cannot be put under a field (a dotted alias name is an object there)', () => {
    const e = failure(() =>
      Mapping.fromJSON('_doc', { properties: { t: { type: 'text', fields: { raw: { type: 'keyword' } } }, d: { type: 'long' } } }).merge('_doc', {
        properties: { 't.raw': { type: 'alias', path: 'd' } },
      }),
    );
    assert.equal(e.reason, 'mapper [t] of different type, current_type [text], merged_type [ObjectMapper]');
  });

  it('change their path on merge, and stay aliases', () => {
    const m = Mapping.fromJSON('_doc', base).merge('_doc', { properties: { a: { type: 'alias', path: 'o.k' } } });
    assert.equal(m.field('a')!.path, 'o.k');
    assert.equal(failure(() => m.merge('_doc', { properties: { a: { properties: { x: { type: 'long' } } } } })).reason, 'Cannot merge a field alias mapping [a] with a mapping that is not for a field alias.');
    assert.equal(failure(() => m.merge('_doc', { properties: { o: { type: 'alias', path: 'd' } } })).reason, "Can't merge a non object mapping [o] with an object mapping [o]");
  });

  it('refuse values and copy_to in documents', () => {
    const m = Mapping.fromJSON('_doc', { properties: { ...base.properties, c: { type: 'keyword', copy_to: 'a' } } });
    const write = failure(() => m.parse({ a: 1 }));
    assert.equal(write.type, 'mapper_parsing_exception');
    assert.equal(write.causedBy?.reason, 'Cannot write to a field alias [a].');
    assert.equal(failure(() => m.parse({ c: 'x' })).causedBy?.reason, 'Cannot copy to a field alias [a].');
    assert.equal(failure(() => m.parse({ 'a.b': 'x' })).causedBy?.reason, 'Cannot write to a field alias [a].');
  });
});

describe('join', () => {
  it('is refused as on a node without the parent-join module', () => {
    const e = failure(() => Mapping.fromJSON('_doc', { properties: { j: { type: 'join', relations: { q: 'a' } } } }));
    assert.equal(e.type, 'mapper_parsing_exception');
    assert.equal(e.reason, 'No handler for type [join] declared on field [j]');
  });
});
