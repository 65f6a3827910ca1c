/**
 * Mapping.parseInSteps (issue 11): a large document is parsed against its
 * mapping a root field or one root array element at a time, on a shard
 * worker that answers searches between the steps. What it yields is what
 * Mapping.parse gives: the same fields, values, nested documents and
 * dynamic mapping update, the same errors; and it yields once per element
 * of a large root array, so no step takes the whole array.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEsError, renderError } from '../../../shared/errors/es-errors.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';

/** The parse as plain data (field mappings by path) and the number of steps taken. */
function stepped(m: Mapping, doc: Record<string, unknown>): { doc: unknown; steps: number } {
  const gen = m.parseInSteps(doc, 1_000_000);
  let steps = 0;
  for (;;) {
    const r = gen.next();
    if (r.done === true) return { doc: plain(r.value), steps };
    steps++;
  }
}

function plain(d: ParsedDocument): unknown {
  const fields = (fs: ParsedDocument['fields']) => fs.map((f) => [f.mapping.path, [...f.values]]);
  return { fields: fields(d.fields), nested: d.nested?.map((n) => ({ path: n.path, fields: fields(n.fields) })) ?? null, dynamicUpdate: d.dynamicUpdate };
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    assert.ok(isEsError(e), `expected an EsError, got ${String(e)}`);
    return renderError(e);
  }
  assert.fail('expected an error');
}

const mapping = Mapping.fromJSON('_doc', {
  properties: {
    title: { type: 'text' },
    items: { type: 'nested', include_in_parent: true, properties: { name: { type: 'keyword' }, inner: { type: 'nested', properties: { a: { type: 'keyword' } } } } },
    where: { type: 'geo_point' },
    tags: { type: 'keyword' },
    same: { type: 'alias', path: 'tags' },
    obj: { properties: { n: { type: 'long' } } },
  },
});

describe('Mapping.parseInSteps', () => {
  it('gives what parse gives for nested arrays, dynamic fields, dotted keys, geo points, objects and __proto__ keys', () => {
    // JSON.parse makes `__proto__` an own key, as a request body's.
    const doc = JSON.parse(
      `${JSON.stringify({
        title: 'a large one',
        items: Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, extra: i, inner: [{ a: `x${i}` }, { a: `y${i}` }] })),
        where: [13.4, 52.5],
        tags: ['a', 'b', null, ['c', 'd']],
        'obj.n': 7,
        obj: [{ n: 1 }, { n: 2 }],
        fresh: [1, 2, 3],
        when: '2024-01-01T00:00:00Z',
        empty: [],
      }).slice(0, -1)},"__proto__":{"p":"y"}}`,
    ) as Record<string, unknown>;
    const whole = plain(mapping.parse(doc, 1_000_000));
    const { doc: inSteps, steps } = stepped(mapping, doc);
    assert.deepEqual(inSteps, whole);
    assert.ok(JSON.stringify(whole).includes('"__proto__.p",["y"]'), JSON.stringify(whole));
    // One step per element of each array at the root, one per other field.
    assert.equal(steps, 1 + 50 + 1 + 4 + 1 + 2 + 3 + 1 + 0 + 1);
  });

  it('throws the errors parse throws: strict dynamic mapping, an alias written to, a metadata field, too many nested objects', () => {
    const strict = Mapping.fromJSON('_doc', { dynamic: 'strict', properties: { k: { type: 'keyword' } } });
    const cases: [Mapping, Record<string, unknown>, number][] = [
      [strict, { k: 'x', other: [1, 2] }, 1_000_000],
      [strict, { k: 'x', other: [] }, 1_000_000],
      [mapping, { same: ['a', 'b'] }, 1_000_000],
      [mapping, { _id: ['a'] }, 1_000_000],
      [mapping, { items: Array.from({ length: 5 }, () => ({ name: 'n' })) }, 3],
      [mapping, { obj: [{ n: 'not a number' }] }, 1_000_000],
    ];
    for (const [m, doc, limit] of cases) {
      const expected = errorOf(() => m.parse(doc, limit));
      const got = errorOf(() => {
        const gen = m.parseInSteps(doc, limit);
        while (gen.next().done !== true);
      });
      assert.deepEqual(got, expected, JSON.stringify(doc));
    }
  });

  it('lets the same mapping parse other documents between its steps', () => {
    const doc = { title: 'big', items: Array.from({ length: 20 }, (_, i) => ({ name: `n${i}` })) };
    const gen = mapping.parseInSteps(doc, 1_000_000);
    let r = gen.next();
    for (let i = 0; !r.done; i++) {
      // A small document indexed by the same copy during a turn.
      if (i % 5 === 0) assert.deepEqual((plain(mapping.parse({ title: `small ${i}`, tags: 'z' })) as { fields: unknown }).fields, [['title', [`small ${i}`]], ['tags', ['z']]]);
      r = gen.next();
    }
    assert.deepEqual(plain(r.value), plain(mapping.parse(doc, 1_000_000)));
  });
});
