import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentChecker, LARGE_DOCUMENT_BYTES } from '../../../services/node/coordinator/document-check.ts';
import { CHECK_CONTEXT } from '../../helpers/check-context.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';

const ctx = CHECK_CONTEXT;
const builtIn = (): boolean => true;

const checker = new DocumentChecker();
after(() => checker.close());

/** A document of at least LARGE_DOCUMENT_BYTES, with `extra` fields added. */
function largeDoc(extra: Record<string, unknown>): Buffer {
  const filler = 'x'.repeat(1000);
  const items = Array.from({ length: Math.ceil(LARGE_DOCUMENT_BYTES / 1000) + 1 }, (_, i) => ({ n: i, text: filler }));
  return Buffer.from(JSON.stringify({ items, ...extra }));
}

test('a large document is checked on the thread: its dynamic fields extend the mapping the next documents see', async () => {
  const base = Mapping.fromJSON('_doc', { properties: { k: { type: 'keyword' } } });
  const out = await checker.check(
    base,
    false,
    [{ docs: [largeDoc({ count: 3 })] }, { docs: [Buffer.from('{"count":"not a number"}')] }, { docs: [Buffer.from('{"note":"small"}')] }],
    ctx,
    builtIn,
  );
  // `count` became a long on the thread, so the second document's string fails against it inline.
  assert.equal(out.errors[0], null);
  assert.equal(out.errors[1]?.type, 'mapper_parsing_exception');
  assert.match(out.errors[1]?.reason ?? '', /failed to parse field \[count\] of type \[long\]/);
  assert.equal(out.errors[2], null);
  assert.equal(out.mapping.field('count')?.type, 'long');
  assert.equal(out.mapping.field('items.text')?.type, 'text');
  assert.equal(out.mapping.field('note')?.type, 'text');
  assert.notEqual(out.updatedJson, null);
  assert.deepEqual(JSON.parse(out.updatedJson!), out.mapping.toJSON());
  const closing = checker.close();
  assert.ok(closing instanceof Promise, 'the check thread was started');
  await closing;
});

test('a large document the mapping refuses fails alone, with the same error as inline', async () => {
  const base = Mapping.fromJSON('_doc', { dynamic: 'strict', properties: { items: { type: 'object', dynamic: true } } });
  const big = largeDoc({ surprise: 1 });
  const out = await checker.check(base, false, [{ docs: [big] }, { docs: [Buffer.from('{"items":[{"n":1}]}')] }], ctx, builtIn);
  assert.equal(out.errors[0]?.type, 'strict_dynamic_mapping_exception');
  assert.equal(out.errors[0]?.reason, 'mapping set to strict, dynamic introduction of [surprise] within [_doc] is not allowed');
  assert.equal(out.errors[0]?.status, 400);
  assert.equal(out.errors[1], null);
});

test('a large document that is not JSON fails with a json_parse_exception cause', async () => {
  const broken = Buffer.concat([largeDoc({}).subarray(0, LARGE_DOCUMENT_BYTES + 10), Buffer.from('{{')]);
  const out = await checker.check(Mapping.empty('_doc'), true, [{ docs: [broken] }], ctx, builtIn);
  assert.equal(out.errors[0]?.type, 'mapper_parsing_exception');
  assert.equal(out.errors[0]?.causedBy?.type, 'json_parse_exception');
});

test('small documents alone never start the thread and give the same outcome', async () => {
  const inline = new DocumentChecker();
  const out = await inline.check(Mapping.empty('_doc'), true, [{ docs: [Buffer.from('{"a":1}')] }, { docs: [Buffer.from('{"a":"x"}')] }], ctx, builtIn);
  assert.equal(out.errors[0], null);
  assert.equal(out.errors[1]?.type, 'mapper_parsing_exception');
  assert.equal(out.mapping.field('a')?.type, 'long');
  assert.equal(inline.close(), undefined, 'no thread was started');
});

test('a large body that is not a JSON object is refused by validate, as a small one is', async () => {
  const big = largeDoc({});
  assert.equal(await checker.validate(big), undefined, 'a valid large body is read on the thread');
  const dup = Buffer.concat([big.subarray(0, big.length - 1), Buffer.from(',"items":1}')]);
  await assert.rejects(checker.validate(dup), (e: { type: string; causedBy?: { type: string; reason: string } }) => {
    assert.equal(e.type, 'mapper_parsing_exception');
    assert.equal(e.causedBy?.type, 'json_parse_exception');
    assert.match(e.causedBy?.reason ?? '', /Duplicate field 'items'/);
    return true;
  });
  const array = Buffer.from(JSON.stringify([big.toString()]));
  await assert.rejects(checker.validate(array), (e: { type: string; causedBy?: { type: string } }) => e.type === 'mapper_parsing_exception' && e.causedBy?.type === 'not_x_content_exception');
  assert.deepEqual(await checker.validate(Buffer.from('{"a":1}')), { a: 1 }, 'a small body is read here');
});

test('a large body validated on the thread is checked against the mapping from the same copy, and again from a new one', async () => {
  const big = largeDoc({ validated: 1 });
  assert.equal(await checker.validate(big), undefined);
  for (let round = 0; round < 2; round++) {
    const out = await checker.check(Mapping.empty('_doc'), true, [{ docs: [big] }], ctx, builtIn);
    assert.equal(out.errors[0], null);
    assert.equal(out.mapping.field('validated')?.type, 'long', `round ${round}`);
    assert.equal(out.mapping.field('items.text')?.type, 'text');
  }
  assert.equal(big.length > LARGE_DOCUMENT_BYTES, true);
  assert.equal(JSON.parse(big.toString()).validated, 1, 'the request body is untouched');
});
