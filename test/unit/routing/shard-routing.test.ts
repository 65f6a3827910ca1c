/**
 * Known answers come from Elasticsearch itself, never from this code:
 * - Murmur3HashFunctionTests.testKnownValues (server/src/test/.../routing/operation/hash/murmur3/)
 * - OperationRoutingTests.testBWC, testPartitionedIndexBWC, testPartitionedIndexShrunk (6.x branch)
 * - the Search Shards API reference (docs/reference/search/search-shards.asciidoc): in the 5.x/6.x
 *   reference, `twitter` with the default 5 shards and routing foo,baz searches shards 0 and 1; in the
 *   7.x+ reference, 5 shards (7.x default: 640 routing shards) and routing foo,bar search shards 2 and 3
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { esMurmur3Hash, murmur3x86_32 } from '../../../shared/routing/murmur3.ts';
import {
  defaultRoutingNumShards,
  routingFactor,
  shardForDocument,
  shardForRouting,
  shardsForSearchRouting,
} from '../../../shared/routing/shard-routing.ts';
import { isEsError } from '../../../shared/errors/es-errors.ts';

/** Java's `int` view of a hex literal such as 0xd7c31989. */
const javaInt = (hex: number): number => hex | 0;

test('Murmur3HashFunction.hash(String) matches Elasticsearch known values', () => {
  const known: [number, string][] = [
    [0x5a0cb7c3, 'hell'],
    [0xd7c31989, 'hello'],
    [0x22ab2984, 'hello w'],
    [0xdf0ca123, 'hello wo'],
    [0xe7744d61, 'hello wor'],
    [0xe07db09c, 'The quick brown fox jumps over the lazy dog'],
    [0x4e63d2ad, 'The quick brown fox jumps over the lazy cog'],
  ];
  for (const [expected, input] of known) {
    assert.equal(esMurmur3Hash(input), javaInt(expected), input);
  }
});

test('murmur3_x86_32 over bytes matches the reference vectors', () => {
  assert.equal(murmur3x86_32(new Uint8Array(0), 0), 0);
  assert.equal(murmur3x86_32(new Uint8Array(0), 1) >>> 0, 0x514e28b7);
  assert.equal(murmur3x86_32(Buffer.from('hello'), 0) >>> 0, 613153351);
  assert.equal(murmur3x86_32(Buffer.from('Turn me into a hash'), 1234) >>> 0, 4138100590);
});

test('the string hash equals murmur3 over the UTF-16LE bytes, surrogates and odd lengths included', () => {
  const samples = ['', 'a', 'ab', 'abc', 'é', '京A12345', '🌵', 'x🌵y', '\uffff\u0000', 'ПРИВЕТ мир'];
  let seed = 7;
  for (let i = 0; i < 200; i++) {
    let s = '';
    const len = i % 23;
    for (let j = 0; j < len; j++) {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0;
      s += String.fromCharCode((seed >>> 8) & 0xffff);
    }
    samples.push(s);
  }
  for (const s of samples) {
    assert.equal(esMurmur3Hash(s), murmur3x86_32(Buffer.from(s, 'utf16le'), 0), JSON.stringify(s));
  }
});

test('6.x indices route with number_of_routing_shards = number_of_shards by default', () => {
  assert.equal(defaultRoutingNumShards(5), 5);
  assert.equal(defaultRoutingNumShards(8), 8);
});

test('OperationRoutingTests.testBWC: 8 shards, routing = id or routing value', () => {
  const termToShard: Record<string, number> = {
    sEERfFzPSI: 1, cNRiIrjzYd: 7, BgfLBXUyWT: 5, cnepjZhQnb: 3, OKCmuYkeCK: 6, OutXGRQUja: 5, yCdyocKWou: 1,
    KXuNWWNgVj: 2, DGJOYrpESx: 4, upLDybdTGs: 5, yhZhzCPQby: 1, EyCVeiCouA: 1, tFyVdQauWR: 6, nyeRYDnDQr: 6,
    hswhrppvDH: 0, BSiWvDOsNE: 5, YHicpFBSaY: 1, EquPtdKaBZ: 4, rSjLZHCDfT: 5, qoZALVcite: 7, yDCCPVBiCm: 7,
    ngizYtQgGK: 5, FYQRIBcNqz: 0, EBzEDAPODe: 2, YePigbXgKb: 1, PeGJjomyik: 3, cyQIvDmyYD: 7, yIEfZrYfRk: 5,
    kblouyFUbu: 7, xvIGbRiGJF: 3, KWimwsREPf: 4, wsNavvIcdk: 7, xkWaPcCmpT: 0, FKKTOnJMDy: 7, RuLzobYixn: 2,
    mFohLeFRvF: 4, aAMXnamRJg: 7, zKBMYJDmBI: 0, ElSVuJQQuw: 7, pezPtTQAAm: 7, zBjjNEjAex: 2, PGgHcLNPYX: 7,
    hOkpeQqTDF: 3, chZXraUPBH: 7, FAIcSmmNXq: 5, EZmDicyayC: 0, GRIueBeIyL: 7, qCChjGZYLp: 3, IsSZQwwnUT: 3,
    MGlxLFyyCK: 3, YmscwrKSpB: 0, czSljcjMop: 5, XhfGWwNlng: 1, cWpKJjlzgj: 7, eDzIfMKbvk: 1, WFFWYBfnTb: 0,
    oDdHJxGxja: 7, PDOQQqgIKE: 1, bGEIEBLATe: 6, xpRkJPWVpu: 2, kTwZnPEeIi: 2, DifcuqSsKk: 1, CEmLmljpXe: 5,
    cuNKtLtyJQ: 7, yNjiAnxAmt: 5, bVDJDCeaFm: 2, vdnUhGLFtl: 0, LnqSYezXbr: 5, EzHgydDCSR: 3, ZSKjhJlcpn: 1,
    WRjUoZwtUz: 3, RiBbcCdIgk: 4, yizTqyjuDn: 4, QnFjcpcZUT: 4, agYhXYUUpl: 7, UOjiTugjNC: 7, nICGuWTdfV: 0,
    NrnSmcnUVF: 2, ZSzFcbpDqP: 3, YOhahLSzzE: 5, iWswCilUaT: 1, zXAamKsRwj: 2, aqGsrUPHFq: 5, eDItImYWTS: 1,
    JAYDZMRcpW: 4, lmvAaEPflK: 7, IKuOwPjKCx: 5, schsINzlYB: 1, OqbFNxrKrF: 2, QrklDfvEJU: 6, VLxKRKdLbx: 4,
    imoydNTZhV: 1, uFZyTyOMRO: 4, nVAZVMPNNx: 3, rPIdESYaAO: 5, nbZWPWJsIM: 0, wRZXPSoEgd: 3, nGzpgwsSBc: 4,
    AITyyoyLLs: 4,
  };
  assert.equal(Object.keys(termToShard).length, 99);
  for (const [term, shard] of Object.entries(termToShard)) {
    assert.equal(shardForRouting(term, 8), shard, term);
    assert.equal(shardForDocument(term, null, { numberOfShards: 8 }), shard, `id ${term}`);
    assert.equal(shardForDocument('foobar', term, { numberOfShards: 8 }), shard, `routing ${term}`);
  }
});

test('OperationRoutingTests.testPartitionedIndexBWC: 6 shards, routing_partition_size 2', () => {
  const expected: Record<string, Record<string, number>> = {
    a: { a_0: 3, a_1: 2, a_2: 2, a_3: 3 },
    b: { b_0: 5, b_1: 0, b_2: 0, b_3: 0 },
    c: { c_0: 4, c_1: 4, c_2: 3, c_3: 4 },
    d: { d_0: 3, d_1: 4, d_2: 4, d_3: 4 },
  };
  for (const [routing, ids] of Object.entries(expected)) {
    for (const [id, shard] of Object.entries(ids)) {
      assert.equal(shardForDocument(id, routing, { numberOfShards: 6, routingPartitionSize: 2 }), shard, `${routing}/${id}`);
    }
  }
});

test('OperationRoutingTests.testPartitionedIndexShrunk: 4 shards, 8 routing shards, routing_partition_size 3', () => {
  const expected: Record<string, Record<string, number>> = {
    a: { a_0: 1, a_1: 2, a_2: 2, a_3: 2, a_4: 1, a_5: 2 },
    b: { b_0: 0, b_1: 0, b_2: 0, b_3: 0, b_4: 3, b_5: 3 },
    c: { c_0: 1, c_1: 1, c_2: 0, c_3: 0, c_4: 0, c_5: 1 },
    d: { d_0: 2, d_1: 2, d_2: 3, d_3: 3, d_4: 3, d_5: 3 },
  };
  const settings = { numberOfShards: 4, routingNumShards: 8, routingPartitionSize: 3 };
  for (const [routing, ids] of Object.entries(expected)) {
    for (const [id, shard] of Object.entries(ids)) {
      assert.equal(shardForDocument(id, routing, settings), shard, `${routing}/${id}`);
    }
    // A search with this routing visits every shard its documents can be on.
    const searched = shardsForSearchRouting([routing], settings);
    for (const shard of Object.values(ids)) assert.ok(searched.includes(shard), `${routing} -> ${searched.join(',')}`);
    assert.ok(searched.length <= 3);
  }
});

test('search-shards docs, 6.x: 5 shards, routing foo,baz searches shards 0 and 1', () => {
  assert.deepEqual(shardsForSearchRouting(['foo', 'baz'], { numberOfShards: 5 }), [0, 1]);
});

test('search-shards docs, 7.x: 5 shards and 640 routing shards, routing foo,bar searches shards 2 and 3', () => {
  assert.deepEqual(shardsForSearchRouting(['foo', 'bar'], { numberOfShards: 5, routingNumShards: 640 }), [2, 3]);
});

test('number_of_routing_shards must be a multiple of number_of_shards, with Elasticsearch messages', () => {
  assert.equal(routingFactor(5, 5), 1);
  assert.equal(routingFactor(4, 8), 2);
  assert.throws(
    () => routingFactor(5, 3),
    (err: unknown) =>
      isEsError(err) &&
      err.type === 'illegal_argument_exception' &&
      err.message === 'index.number_of_routing_shards [3] must be >= index.number_of_shards [5]',
  );
  assert.throws(
    () => shardForRouting('x', 3, 8),
    (err: unknown) => isEsError(err) && err.message === 'the number of source shards [3] must be a must be a factor of [8]',
  );
  assert.throws(() => shardForRouting('x', 0), (err: unknown) => isEsError(err) && err.status === 400);
});

test('every shard number is in range and one shard gets everything', () => {
  for (let i = 0; i < 1000; i++) {
    const s = shardForRouting(`doc-${i}`, 7);
    assert.ok(s >= 0 && s < 7);
    assert.equal(shardForRouting(`doc-${i}`, 1), 0);
  }
});
