/**
 * Parsing documents against a mapping as Elasticsearch 6.8 does: typed values,
 * coercion, nulls and arrays, multi-fields, copy_to, dynamic mapping of each
 * JSON type, and the errors a user sees.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, renderError, type EsError } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import { PASSINFO } from './fixtures.ts';

function values(doc: ParsedDocument): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const f of doc.fields) out[f.mapping.path] = [...f.values];
  return out;
}

function failure(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

const passinfo = Mapping.fromJSON('passinfo', PASSINFO);
const PASS = {
  event_id: 'e1',
  event_type: 1,
  land_id: 'L01',
  land_picture: 'http://img/1.jpg',
  pass_time: '2020-01-01 08:00:00',
  plate: '京A12345',
  plate_category: '2',
  plate_color: 1,
  plate_picture: 'http://img/2.jpg',
  speed: 80,
  vehicle_category: 1,
  vehicle_color: 2,
  vehicle_length: 5,
};

describe('a pass record', () => {
  it('gives typed values for every field, the sub-field included', () => {
    const doc = passinfo.parse(PASS);
    assert.equal(doc.dynamicUpdate, null);
    assert.deepEqual(values(doc), {
      event_id: ['e1'],
      event_type: [1],
      land_id: ['L01'],
      land_picture: ['http://img/1.jpg'],
      pass_time: [Date.UTC(2020, 0, 1, 8)],
      plate: ['京A12345'],
      'plate.keyword': ['京A12345'],
      plate_category: [2],
      plate_color: [1],
      plate_picture: ['http://img/2.jpg'],
      speed: [80],
      vehicle_category: [1],
      vehicle_color: [2],
      vehicle_length: [5],
    });
  });

  it('a date in the wrong format is a mapper_parsing_exception caused by Joda\'s message', () => {
    const e = failure(() => passinfo.parse({ ...PASS, pass_time: '2020-01-01T08:00:00' }));
    assert.equal(e.type, 'mapper_parsing_exception');
    assert.equal(e.reason, 'failed to parse field [pass_time] of type [date]');
    assert.equal(e.causedBy?.type, 'illegal_argument_exception');
    assert.equal(e.causedBy?.reason, 'Invalid format: "2020-01-01T08:00:00" is malformed at "T08:00:00"');
    const body = renderError(e);
    assert.deepEqual(body.error.root_cause, [{ type: 'mapper_parsing_exception', reason: 'failed to parse field [pass_time] of type [date]' }]);
    assert.equal(body.status, 400);
  });

  it('a number that is not one: integers fail in Double.parseDouble, longs in Long.parseLong', () => {
    const e = failure(() => passinfo.parse({ ...PASS, speed: 'abc' }));
    assert.equal(e.reason, 'failed to parse field [speed] of type [integer]');
    assert.equal(e.causedBy?.type, 'number_format_exception');
    assert.equal(e.causedBy?.reason, 'For input string: "abc"');
    const longs = Mapping.fromJSON('doc', { properties: { n: { type: 'long' } } });
    const l = failure(() => longs.parse({ n: 'abc' }));
    assert.equal(l.reason, 'failed to parse field [n] of type [long]');
    assert.equal(l.causedBy?.type, 'illegal_argument_exception');
    assert.equal(l.causedBy?.reason, 'For input string: "abc"');
  });

  it('parses 250,000 records in well under a second of CPU', () => {
    const docs = Array.from({ length: 1000 }, (_, i) =>
      JSON.parse(JSON.stringify({ ...PASS, event_id: `e${i}`, plate: `京A${10000 + i}`, speed: i % 120, pass_time: `2020-01-${String(1 + (i % 28)).padStart(2, '0')} 08:00:00` })),
    );
    let n = 0;
    const cpu = process.cpuUsage();
    for (let r = 0; r < 250; r++) for (const d of docs) n += passinfo.parse(d).fields.length;
    const ms = process.cpuUsage(cpu).user / 1000;
    assert.equal(n, 250_000 * 14);
    assert.ok(ms < 1000, `took ${ms} ms of CPU`);
  });
});

describe('values', () => {
  const m = Mapping.fromJSON('doc', {
    properties: {
      l: { type: 'long' },
      i: { type: 'integer' },
      s: { type: 'short' },
      b: { type: 'byte' },
      d: { type: 'double' },
      f: { type: 'float' },
      h: { type: 'half_float' },
      sf: { type: 'scaled_float', scaling_factor: 100 },
      bool: { type: 'boolean' },
      k: { type: 'keyword', ignore_above: 5 },
      kn: { type: 'keyword', null_value: 'NULL' },
      t: { type: 'text', fields: { raw: { type: 'keyword' }, len: { type: 'integer' } } },
      ip: { type: 'ip' },
      strict_n: { type: 'integer', coerce: false },
      bad_ok: { type: 'integer', ignore_malformed: true },
      o: { properties: { x: { type: 'keyword' } } },
    },
  });

  it('numbers coerce from strings and truncate decimals', () => {
    const v = values(m.parse({ l: '12', i: 12.9, s: '-7.5', b: 127, d: '1.5', f: 0.1, h: 1.0001, sf: 1.234 }));
    assert.deepEqual(v.l, [12]);
    assert.deepEqual(v.i, [12]);
    assert.deepEqual(v.s, [-7]);
    assert.deepEqual(v.b, [127]);
    assert.deepEqual(v.d, [1.5]);
    assert.deepEqual(v.f, [Math.fround(0.1)]);
    assert.deepEqual(v.h, [1]); // half precision: 1 + 2^-10 is the next value after 1
    assert.deepEqual(v.sf, [1.23]);
  });

  it('numbers out of range and without coercion are refused with the Java texts', () => {
    assert.equal(failure(() => m.parse({ b: 300 })).causedBy?.reason, 'Value [300] is out of range for a byte');
    assert.equal(failure(() => m.parse({ i: '3000000000' })).causedBy?.reason, 'Value [3000000000] is out of range for an integer');
    assert.equal(failure(() => m.parse({ strict_n: '5' })).causedBy?.reason, 'Integer value passed as String');
    assert.equal(failure(() => m.parse({ strict_n: 1.5 })).causedBy?.reason, '1.5 cannot be converted to Integer without data loss');
    assert.equal(failure(() => m.parse({ d: 'Infinity' })).causedBy?.reason, '[double] supports only finite values, but got [Infinity]');
  });

  it('an empty string is a null for numbers; ignore_malformed drops bad values and names the field in _ignored', () => {
    assert.deepEqual(values(m.parse({ l: '', bad_ok: 'x', i: 1 })), { i: [1], _ignored: ['bad_ok'] });
    assert.deepEqual(values(m.parse({ l: '', i: 1 })), { i: [1] });
  });

  it('booleans take true/false, their strings and the empty string', () => {
    assert.deepEqual(values(m.parse({ bool: [true, 'false', ''] })).bool, [true, false, false]);
    const e = failure(() => m.parse({ bool: 'yes' }));
    assert.equal(e.reason, 'failed to parse field [bool] of type [boolean]');
    assert.equal(e.causedBy?.reason, 'Failed to parse value [yes] as only [true] or [false] are allowed.');
  });

  it('arrays give several values, nested arrays flatten, nulls are skipped or replaced by null_value', () => {
    const v = values(m.parse({ l: [1, [2, [3]], null], kn: [null, 'x'], k: null }));
    assert.deepEqual(v.l, [1, 2, 3]);
    assert.deepEqual(v.kn, ['NULL', 'x']);
    assert.equal(v.k, undefined);
  });

  it('ignore_above leaves long keywords out', () => {
    assert.deepEqual(values(m.parse({ k: ['short', 'too long'] })).k, ['short']);
  });

  it('multi-fields parse the same value by their own type', () => {
    const v = values(m.parse({ t: ['12', 7] }));
    assert.deepEqual(v.t, ['12', '7']);
    assert.deepEqual(v['t.raw'], ['12', '7']);
    assert.deepEqual(v['t.len'], [12, 7]);
  });

  it('ip addresses are indexed as their 16 bytes in hex (IPv4 mapped into IPv6), so terms sort in address order', () => {
    assert.deepEqual(values(m.parse({ ip: ['127.0.0.1', '::1', '2001:DB8:0:0:0:0:0:1', '::ffff:10.0.0.1'] })).ip, [
      '00000000000000000000ffff7f000001',
      '00000000000000000000000000000001',
      '20010db8000000000000000000000001',
      '00000000000000000000ffff0a000001',
    ]);
    assert.equal(failure(() => m.parse({ ip: '300.1.1.1' })).causedBy?.reason, "'300.1.1.1' is not an IP string literal.");
  });

  it('objects: dotted keys are paths, a concrete value for an object is refused', () => {
    assert.deepEqual(values(m.parse({ 'o.x': 'a', o: { x: 'b' } })), { 'o.x': ['a', 'b'] });
    assert.equal(
      failure(() => m.parse({ o: 'flat' })).reason,
      'object mapping for [o] tried to parse field [o] as object, but found a concrete value',
    );
  });

  it('an object for a leaf is a parse failure of that field', () => {
    const e = failure(() => m.parse({ k: { a: 1 } }));
    assert.equal(e.reason, 'failed to parse field [k] of type [keyword]');
    assert.equal(e.causedBy?.type, 'illegal_state_exception');
  });

  it('metadata fields cannot be in a document', () => {
    assert.equal(
      failure(() => m.parse({ _id: '1' })).reason,
      'Field [_id] is a metadata field and cannot be added inside a document. Use the index API request parameters.',
    );
  });

  it('copy_to copies values into the target field', () => {
    const c = Mapping.fromJSON('doc', {
      properties: {
        first: { type: 'text', copy_to: 'full' },
        last: { type: 'text', copy_to: ['full'] },
        full: { type: 'text' },
      },
    });
    assert.deepEqual(values(c.parse({ first: 'John', last: 'Smith' })).full, ['John', 'Smith']);
  });
});

describe('dynamic mapping', () => {
  const m = Mapping.fromJSON('doc', { properties: { known: { type: 'keyword' } } });

  it('maps each JSON type as Elasticsearch 6 does', () => {
    const doc = m.parse({
      s: 'hello',
      n: 5,
      f: 1.5,
      b: true,
      d: '2015-01-01',
      dt: '2015-01-01T12:10:30Z',
      slash: '2015/01/01 12:10:30',
      obj: { a: 1, inner: { c: 'x' } },
      empty: {},
      nothing: null,
      list: [],
    });
    assert.deepEqual(doc.dynamicUpdate, {
      properties: {
        s: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
        n: { type: 'long' },
        f: { type: 'float' },
        b: { type: 'boolean' },
        d: { type: 'date' },
        dt: { type: 'date' },
        slash: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis' },
        obj: {
          properties: { a: { type: 'long' }, inner: { properties: { c: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } } },
        },
        empty: { type: 'object' },
      },
    });
    const v = values(doc);
    assert.deepEqual(v.s, ['hello']);
    assert.deepEqual(v['s.keyword'], ['hello']);
    assert.deepEqual(v.n, [5]);
    assert.deepEqual(v.f, [1.5]);
    assert.deepEqual(v.b, [true]);
    assert.deepEqual(v.d, [Date.UTC(2015, 0, 1)]);
    assert.deepEqual(v.slash, [Date.UTC(2015, 0, 1, 12, 10, 30)]);
    assert.deepEqual(v['obj.inner.c'], ['x']);
  });

  it('numbers in strings stay strings unless numeric_detection is on', () => {
    assert.deepEqual(m.parse({ x: '12' }).dynamicUpdate, { properties: { x: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } });
    const nd = Mapping.fromJSON('doc', { numeric_detection: true, date_detection: false });
    assert.deepEqual(nd.parse({ x: '12', y: '1.5', z: '2015-01-01' }).dynamicUpdate, {
      properties: {
        x: { type: 'long' },
        y: { type: 'float' },
        z: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      },
    });
  });

  it('the first value of a new field decides its type for the rest of the document', () => {
    const doc = m.parse({ mixed: ['a', 5] });
    assert.deepEqual(values(doc).mixed, ['a', '5']);
  });

  it('new fields inside known objects come back under their object', () => {
    const o = Mapping.fromJSON('doc', { properties: { owner: { properties: { name: { type: 'keyword' } } } } });
    const doc = o.parse({ owner: { name: 'a', age: 3 } });
    assert.deepEqual(doc.dynamicUpdate, { properties: { owner: { properties: { age: { type: 'long' } } } } });
    const merged = o.merge('doc', doc.dynamicUpdate);
    assert.equal(merged.field('owner.age')?.type, 'long');
    assert.equal(merged.parse({ owner: { name: 'a', age: 3 } }).dynamicUpdate, null);
  });

  it('dynamic: false keeps unmapped fields in _source only', () => {
    const f = Mapping.fromJSON('doc', { dynamic: false, properties: { a: { type: 'keyword' } } });
    const doc = f.parse({ a: 'x', b: 1, c: { d: 'e' } });
    assert.equal(doc.dynamicUpdate, null);
    assert.deepEqual(values(doc), { a: ['x'] });
  });

  it('dynamic: strict refuses unmapped fields, naming the object', () => {
    const s = Mapping.fromJSON('doc', { dynamic: 'strict', properties: { a: { type: 'keyword' }, o: { properties: { x: { type: 'long' } } } } });
    const e = failure(() => s.parse({ a: 'x', b: 1 }));
    assert.equal(e.type, 'strict_dynamic_mapping_exception');
    assert.equal(e.reason, 'mapping set to strict, dynamic introduction of [b] within [doc] is not allowed');
    assert.equal(renderError(e).error.root_cause[0].type, 'strict_dynamic_mapping_exception');
    assert.equal(failure(() => s.parse({ o: { y: 1 } })).reason, 'mapping set to strict, dynamic introduction of [y] within [o] is not allowed');
    assert.equal(failure(() => s.parse({ tags: [] })).reason, 'mapping set to strict, dynamic introduction of [tags] within [doc] is not allowed');
  });

  it('an object can relax a strict root', () => {
    const s = Mapping.fromJSON('doc', { dynamic: 'strict', properties: { free: { dynamic: true, properties: {} } } });
    assert.deepEqual(s.parse({ free: { n: 1 } }).dynamicUpdate, { properties: { free: { properties: { n: { type: 'long' } } } } });
  });

  it('dynamic templates decide the mapping of matching new fields', () => {
    const t = Mapping.fromJSON('doc', {
      dynamic_templates: [
        { ids: { match: '*_id', mapping: { type: 'keyword' } } },
        { strings: { match_mapping_type: 'string', mapping: { type: 'text', analyzer: '{name}_analyzer' } } },
      ],
    });
    const doc = t.parse({ user_id: 'u1', title: 'hello', count: 3 });
    assert.deepEqual(doc.dynamicUpdate, {
      properties: {
        user_id: { type: 'keyword' },
        title: { type: 'text', analyzer: 'title_analyzer' },
        count: { type: 'long' },
      },
    });
  });

  it('an empty mapping parses documents too (the update brings the type)', () => {
    const doc = Mapping.empty('_doc').parse({ a: 'x' });
    assert.deepEqual(Mapping.empty('_doc').merge('_doc', doc.dynamicUpdate).toJSON(), {
      properties: { a: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } },
    });
  });
});
