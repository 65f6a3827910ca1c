/**
 * Mapping definitions: validation, GET _mapping rendering, merge rules and
 * conflicts, as Elasticsearch 6.8 answers them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, renderError, type EsError } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { PASSINFO } from './fixtures.ts';


function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

describe('the passinfo mapping', () => {
  const m = Mapping.fromJSON('passinfo', PASSINFO, { analyzerExists: (n) => n === 'plate_ngram' || n === 'standard' });

  it('prints back as it was given', () => {
    assert.deepEqual(m.toJSON(), PASSINFO);
    assert.equal(m.typeName, 'passinfo');
  });

  it('resolves every leaf, sub-fields included', () => {
    assert.deepEqual(
      m.fields().map((f) => f.path),
      [
        'event_id',
        'event_type',
        'land_id',
        'land_picture',
        'location',
        'pass_time',
        'plate',
        'plate.keyword',
        'plate_category',
        'plate_color',
        'plate_picture',
        'speed',
        'vehicle_category',
        'vehicle_color',
        'vehicle_length',
      ],
    );
    const plate = m.field('plate');
    assert.equal(plate?.type, 'text');
    assert.equal(plate?.analyzer, 'plate_ngram');
    assert.equal(plate?.searchAnalyzer, 'plate_ngram');
    assert.equal(plate?.docValues, false);
    const kw = m.field('plate.keyword');
    assert.equal(kw?.type, 'keyword');
    assert.equal(kw?.parent, 'plate');
    assert.equal(kw?.docValues, true);
    assert.equal(m.field('land_picture')?.index, false);
    assert.equal(m.field('land_picture')?.docValues, true);
    assert.equal(m.field('pass_time')?.dateFormat?.pattern, 'yyyy-MM-dd HH:mm:ss');
    assert.equal(m.field('nope'), undefined);
  });

  it('matches wildcard patterns', () => {
    assert.deepEqual(m.matchingFields('pla*'), ['plate', 'plate.keyword', 'plate_category', 'plate_color', 'plate_picture']);
    assert.deepEqual(m.matchingFields('*.keyword'), ['plate.keyword']);
    assert.deepEqual(m.matchingFields('speed'), ['speed']);
    assert.deepEqual(m.matchingFields('missing'), []);
  });

  it('merging its own rendering changes nothing', () => {
    assert.deepEqual(m.merge('passinfo', m.toJSON()).toJSON(), PASSINFO);
  });

  it('an unknown analyzer is refused', () => {
    const e = failure(() => Mapping.fromJSON('passinfo', PASSINFO, { analyzerExists: (n) => n === 'standard' }));
    assert.equal(e.type, 'mapper_parsing_exception');
    assert.equal(e.reason, 'analyzer [plate_ngram] not found for field [plate]');
  });
});

describe('field definitions', () => {
  it('types and their defaults are left out of the rendering', () => {
    const body = {
      properties: {
        t: { type: 'text', analyzer: 'whitespace', search_analyzer: 'standard', fielddata: true, norms: false, index: false },
        k: { type: 'keyword', ignore_above: 10, null_value: 'NULL', doc_values: false, store: true },
        n: { type: 'long', null_value: 0, coerce: false, ignore_malformed: true },
        s: { type: 'scaled_float', scaling_factor: 100 },
        h: { type: 'half_float' },
        b: { type: 'boolean', null_value: false },
        d: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
        ip: { type: 'ip' },
      },
    };
    assert.deepEqual(Mapping.fromJSON('doc', body).toJSON(), {
      properties: {
        b: { type: 'boolean', null_value: false },
        d: { type: 'date' },
        h: { type: 'half_float' },
        ip: { type: 'ip' },
        k: { type: 'keyword', store: true, doc_values: false, null_value: 'NULL', ignore_above: 10 },
        n: { type: 'long', ignore_malformed: true, coerce: false, null_value: 0 },
        s: { type: 'scaled_float', scaling_factor: 100 },
        t: { type: 'text', index: false, norms: false, analyzer: 'whitespace', search_analyzer: 'standard', fielddata: true },
      },
    });
  });

  it('the default analyzer is not printed (a mapping posted twice with analyzer: default)', () => {
    const body = { dynamic: false, properties: { text: { analyzer: 'default', type: 'text' } } };
    const m = Mapping.fromJSON('test_type', body).merge('test_type', body);
    assert.deepEqual(m.toJSON(), { dynamic: 'false', properties: { text: { type: 'text' } } });
  });

  it('dotted property names become objects', () => {
    const m = Mapping.fromJSON('test_type', {
      properties: { text1: { type: 'text', analyzer: 'whitespace' }, 'subfield.text3': { type: 'text' } },
    });
    assert.deepEqual(m.toJSON(), {
      properties: { subfield: { properties: { text3: { type: 'text' } } }, text1: { type: 'text', analyzer: 'whitespace' } },
    });
    assert.equal(m.field('subfield.text3')?.type, 'text');
    assert.ok(m.isObject('subfield'));
  });

  it('objects: type object only without properties, dynamic printed as a string, nested kept', () => {
    const m = Mapping.fromJSON('doc', {
      properties: {
        empty: { type: 'object' },
        owner: { dynamic: 'strict', properties: { name: { type: 'keyword' } } },
        tags: { type: 'nested', properties: { v: { type: 'keyword' } } },
        off: { enabled: false },
      },
    });
    assert.deepEqual(m.toJSON(), {
      properties: {
        empty: { type: 'object' },
        off: { type: 'object', enabled: false },
        owner: { dynamic: 'strict', properties: { name: { type: 'keyword' } } },
        tags: { type: 'nested', properties: { v: { type: 'keyword' } } },
      },
    });
    assert.deepEqual(m.nestedPaths(), ['tags']);
  });

  it('legacy string becomes text, or keyword when not_analyzed, unindexed keyword for index: no', () => {
    const m = Mapping.fromJSON('doc', {
      properties: {
        a: { type: 'string' },
        b: { type: 'string', index: 'not_analyzed' },
        c: { type: 'string', index: 'no' },
        d: { type: 'string', analyzer: 'whitespace', fields: { raw: { type: 'string', index: 'not_analyzed' } } },
      },
    });
    assert.deepEqual(m.toJSON(), {
      properties: {
        a: { type: 'text' },
        b: { type: 'keyword' },
        c: { type: 'keyword', index: false },
        d: { type: 'text', fields: { raw: { type: 'keyword' } }, analyzer: 'whitespace' },
      },
    });
    assert.equal(m.field('c')?.index, false);
  });

  it('root options and metadata fields print in Elasticsearch\'s order', () => {
    const body = {
      _source: { enabled: false },
      _routing: { required: true },
      _meta: { owner: 'team' },
      date_detection: false,
      numeric_detection: true,
      dynamic: 'strict',
      dynamic_templates: [{ strings: { match_mapping_type: 'string', mapping: { type: 'keyword' } } }],
      properties: { a: { type: 'keyword' } },
    };
    const m = Mapping.fromJSON('doc', body);
    assert.equal(
      JSON.stringify(m.toJSON()),
      JSON.stringify({
        dynamic: 'strict',
        _meta: { owner: 'team' },
        _routing: { required: true },
        _source: { enabled: false },
        dynamic_templates: [{ strings: { match_mapping_type: 'string', mapping: { type: 'keyword' } } }],
        date_detection: false,
        numeric_detection: true,
        properties: { a: { type: 'keyword' } },
      }),
    );
    assert.equal(m.sourceEnabled, false);
    assert.equal(m.routingRequired, true);
  });

  it('a body wrapped in its type name is unwrapped; an empty type prints {}', () => {
    assert.deepEqual(Mapping.fromJSON('doc', { doc: { properties: { a: { type: 'long' } } } }).toJSON(), { properties: { a: { type: 'long' } } });
    assert.deepEqual(Mapping.fromJSON('type_1', {}).toJSON(), {});
    assert.deepEqual(Mapping.empty().toJSON(), {});
    assert.equal(Mapping.empty().typeName, null);
  });
});

describe('validation errors', () => {
  const cases: [string, unknown, string, string][] = [
    ['unknown type', { properties: { f: { type: 'xyz' } } }, 'mapper_parsing_exception', 'No handler for type [xyz] declared on field [f]'],
    ['no type', { properties: { f: { analyzer: 'standard' } } }, 'mapper_parsing_exception', 'No type specified for field [f]'],
    [
      'unknown parameter',
      { properties: { f: { type: 'keyword', foo: 'bar' } } },
      'mapper_parsing_exception',
      'Mapping definition for [f] has unsupported parameters:  [foo : bar]',
    ],
    ['empty field name', { properties: { '': { type: 'keyword' } } }, 'illegal_argument_exception', 'name cannot be empty string'],
    [
      'unknown root parameter',
      { foo: 'bar', properties: {} },
      'mapper_parsing_exception',
      'Root mapping definition has unsupported parameters:  [foo : bar]',
    ],
    [
      'search_analyzer without analyzer',
      { properties: { f: { type: 'text', search_analyzer: 'standard' } } },
      'mapper_parsing_exception',
      'analyzer on field [f] must be set when search_analyzer is set',
    ],
    ['index not a boolean', { properties: { f: { type: 'keyword', index: 'no' } } }, 'illegal_argument_exception', 'Could not convert [f.index] to boolean'],
    [
      'scaled_float without factor',
      { properties: { f: { type: 'scaled_float' } } },
      'illegal_argument_exception',
      'Field [f] misses required parameter [scaling_factor]',
    ],
    [
      'bad date format',
      { properties: { f: { type: 'date', format: 'yyyy-MM-dd qq' } } },
      'illegal_argument_exception',
      'Invalid format: [yyyy-MM-dd qq]: Illegal pattern component: qq',
    ],
    [
      'multi-field without type',
      { properties: { f: { type: 'text', fields: { raw: { index: false } } } } },
      'mapper_parsing_exception',
      'no type specified for property [raw]',
    ],
    [
      '_all enabled',
      { _all: { enabled: true } },
      'illegal_argument_exception',
      'Enabling [_all] is disabled in 6.0. As a replacement, you can use [copy_to] on mapping fields to create your own catch all field.',
    ],
  ];
  for (const [name, body, type, reason] of cases) {
    it(name, () => {
      const e = failure(() => Mapping.fromJSON('doc', body));
      assert.equal(e.type, type);
      assert.equal(e.reason, reason);
    });
  }

  it('a boolean parameter names the field and the cause', () => {
    const e = failure(() => Mapping.fromJSON('doc', { properties: { f: { type: 'keyword', index: 'no' } } }));
    assert.equal(e.causedBy?.reason, 'Failed to parse value [no] as only [true] or [false] are allowed.');
  });

  it('an empty type name fails like Elasticsearch (the create-index layer wraps it)', () => {
    assert.equal(failure(() => Mapping.fromJSON('', {})).reason, 'name cannot be empty string');
  });
});

describe('merging', () => {
  const base = Mapping.fromJSON('doc', {
    properties: {
      n: { type: 'long' },
      t: { type: 'text', analyzer: 'whitespace' },
      k: { type: 'keyword', ignore_above: 256 },
      d: { type: 'date', format: 'yyyy-MM-dd' },
      o: { properties: { a: { type: 'keyword' } } },
    },
  });

  it('adds new fields, sub-fields and object properties, keeps the rest', () => {
    const merged = base.merge('doc', {
      properties: {
        t: { type: 'text', analyzer: 'whitespace', fields: { raw: { type: 'keyword' } } },
        o: { properties: { b: { type: 'long' } } },
        z: { type: 'boolean' },
      },
    });
    assert.deepEqual(merged.toJSON(), {
      properties: {
        d: { type: 'date', format: 'yyyy-MM-dd' },
        k: { type: 'keyword', ignore_above: 256 },
        n: { type: 'long' },
        o: { properties: { a: { type: 'keyword' }, b: { type: 'long' } } },
        t: { type: 'text', fields: { raw: { type: 'keyword' } }, analyzer: 'whitespace' },
        z: { type: 'boolean' },
      },
    });
    assert.equal(merged.field('t.raw')?.parent, 't');
    // immutable: the original is unchanged
    assert.equal(base.field('t.raw'), undefined);
  });

  it('updatable parameters take the new value (ignore_above, search_analyzer)', () => {
    const merged = base.merge('doc', { properties: { k: { type: 'keyword', ignore_above: 10 }, t: { type: 'text', analyzer: 'whitespace', search_analyzer: 'standard' } } });
    assert.equal(merged.field('k')?.ignoreAbove, 10);
    assert.equal(merged.field('t')?.searchAnalyzer, 'standard');
  });

  it('a type change is refused', () => {
    const e = failure(() => base.merge('doc', { properties: { n: { type: 'text' } } }));
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'mapper [n] of different type, current_type [long], merged_type [text]');
    assert.equal(
      failure(() => base.merge('doc', { properties: { n: { properties: { x: { type: 'long' } } } } })).reason,
      'mapper [n] of different type, current_type [long], merged_type [ObjectMapper]',
    );
    assert.equal(
      failure(() => base.merge('doc', { properties: { o: { type: 'keyword' } } })).reason,
      "Can't merge a non object mapping [o] with an object mapping [o]",
    );
  });

  it('changing what shapes the index is a conflict, listed as Elasticsearch lists it', () => {
    assert.equal(
      failure(() => base.merge('doc', { properties: { t: { type: 'text' } } })).reason,
      'Mapper for [t] conflicts with existing mapping:\n[mapper [t] has different [analyzer]]',
    );
    assert.equal(
      failure(() => base.merge('doc', { properties: { k: { type: 'keyword', index: false, doc_values: false } } })).reason,
      'Mapper for [k] conflicts with existing mapping:\n[mapper [k] has different [index] values, mapper [k] has different [doc_values] values]',
    );
    assert.equal(
      failure(() => base.merge('doc', { properties: { d: { type: 'date' } } })).reason,
      'Mapper for [d] conflicts with existing mapping:\n[mapper [d] has different [format] values]',
    );
  });

  it('a second type is refused', () => {
    const e = failure(() => base.merge('other', { properties: {} }, { index: 'test' }));
    assert.equal(e.reason, 'Rejecting mapping update to [test] as the final mapping would have more than 1 type: [other, doc]');
    assert.equal(renderError(e).error.root_cause[0].type, 'illegal_argument_exception');
  });

  it('an empty mapping takes the first type', () => {
    const m = Mapping.empty().merge('test_type', { properties: { text: { type: 'text', analyzer: 'whitespace' } } });
    assert.equal(m.typeName, 'test_type');
    assert.deepEqual(m.toJSON(), { properties: { text: { type: 'text', analyzer: 'whitespace' } } });
  });

  it('the total fields limit counts objects, fields, sub-fields and metadata fields', () => {
    const props: Record<string, unknown> = {};
    for (let i = 0; i < 988; i++) props[`f${i}`] = { type: 'keyword' };
    Mapping.fromJSON('doc', { properties: props }, { index: 'big' });
    props.f988 = { type: 'keyword' };
    assert.equal(
      failure(() => Mapping.fromJSON('doc', { properties: props }, { index: 'big' })).reason,
      'Limit of total fields [1000] in index [big] has been exceeded',
    );
  });
});
