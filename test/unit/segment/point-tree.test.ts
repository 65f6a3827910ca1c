/**
 * The geo_point index (point-tree.ts) answers geo filters exactly as the
 * scan over the points column does: random points (clusters, poles, the
 * dateline, duplicates, several per doc, docs without any) and random boxes
 * (some across the dateline), circles (haversine and plane) and polygons, on
 * the heap segment, the written one, a merge with deletes, and the merge
 * reopened as at a restart.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clearBit, newFullBitset } from '../../../shared/engine/segment/bitset.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { visitPointTree, INSIDE, OUTSIDE, CROSSES, LEAF_POINTS, type Relation } from '../../../shared/engine/segment/point-tree.ts';
import { SegmentBuilder, type BufferedDoc } from '../../../shared/engine/segment/segment-builder.ts';
import { writeSegment } from '../../../shared/engine/segment/segment-writer.ts';
import type { PointValues, Segment } from '../../../shared/engine/segment/types.ts';
import { geoBits } from '../../../shared/engine/search/geo-leaves.ts';
import type { GeoFilter, GeoQuery } from '../../../shared/engine/search/query.ts';
import { analyzers, bufferedDoc, fieldMapping, tempSegmentDir } from './fixtures.ts';
import { prng } from '../../../shared/random/prng.ts';

const loc = fieldMapping('loc', 'geo_point');
const tag = fieldMapping('tag', 'keyword');


const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);

/** Places where points gather: a city, both poles, both sides of the dateline, the origin. */
const SPOTS: readonly [number, number][] = [
  [52.37, 4.9],
  [89.99, 20],
  [-89.99, -100],
  [10, 179.99],
  [-10, -179.99],
  [0, 0],
];

function randomPoint(rand: () => number): [number, number] {
  const r = rand();
  if (r < 0.15) return [rand() * 180 - 90, rand() * 360 - 180];
  if (r < 0.2) return [rand() < 0.5 ? 90 : -90, rand() * 360 - 180];
  if (r < 0.25) return [rand() * 180 - 90, rand() < 0.5 ? 180 : -180];
  // Dense around the city, so that shapes' edges cut through crowded leaves.
  if (r < 0.65) return [52.12 + rand() * 0.5, 4.65 + rand() * 0.5];
  const [lat, lon] = SPOTS[Math.floor(rand() * SPOTS.length)]!;
  const spread = rand() < 0.3 ? 0 : rand() < 0.5 ? 0.05 : 2;
  return [clamp(lat + (rand() * 2 - 1) * spread, -90, 90), wrapLon(lon + (rand() * 2 - 1) * spread)];
}

function randomDocs(rand: () => number, n: number, prefix: string): BufferedDoc[] {
  const docs: BufferedDoc[] = [];
  for (let i = 0; i < n; i++) {
    const count = rand() < 0.1 ? 0 : rand() < 0.75 ? 1 : 2 + Math.floor(rand() * 3);
    const values: number[] = [];
    for (let k = 0; k < count; k++) values.push(...randomPoint(rand));
    docs.push(bufferedDoc(`${prefix}${i}`, count === 0 ? [[tag, ['none']]] : [[loc, values], [tag, ['some']]]));
  }
  return docs;
}

function randomFilter(rand: () => number): GeoFilter {
  const [cLat, cLon] = rand() < 0.7 ? SPOTS[Math.floor(rand() * SPOTS.length)]! : [rand() * 180 - 90, rand() * 360 - 180];
  const kind = rand();
  const size = [0.01, 0.05, 0.1, 0.3, 1, 5, 30, 120][Math.floor(rand() * 8)]!;
  if (kind < 0.4) {
    const minLat = clamp(cLat - rand() * size, -90, 90);
    const maxLat = clamp(cLat + rand() * size, -90, 90);
    // Longitudes wrapped into range: a box past the dateline has minLon > maxLon.
    return { type: 'box', minLat, maxLat, minLon: wrapLon(cLon - rand() * size), maxLon: wrapLon(cLon + rand() * size) };
  }
  if (kind < 0.75) {
    const meters = size * 111_000 * (0.2 + rand());
    return { type: 'distance', lat: cLat, lon: cLon, meters, plane: rand() < 0.25 };
  }
  const n = 3 + Math.floor(rand() * 8);
  const lats: number[] = [];
  const lons: number[] = [];
  for (let i = 0; i < n; i++) {
    const angle = (2 * Math.PI * i) / n;
    const r = size * (0.3 + rand());
    lats.push(clamp(cLat + r * Math.sin(angle), -90, 90));
    lons.push(clamp(cLon + r * Math.cos(angle), -180, 180));
  }
  return { type: 'polygon', lats, lons };
}

const query = (filter: GeoFilter): GeoQuery => ({ kind: 'geo', field: 'loc', filter, boost: 1 });

/** The same segment's points without their index: geoBits scans them. */
function scanOnly(seg: Segment): Segment {
  const pv = seg.points?.get('loc');
  const points = new Map<string, PointValues>();
  if (pv !== undefined) points.set('loc', { dims: pv.dims, values: pv.values, starts: pv.starts });
  return { maxDoc: seg.maxDoc, points } as unknown as Segment;
}

function build(id: number, docs: readonly BufferedDoc[]): Segment {
  const b = new SegmentBuilder(analyzers);
  for (const d of docs) b.add(d);
  return b.build(id);
}

function assertSameAsScan(seg: Segment, filters: readonly GeoFilter[], label: string): number {
  assert.ok(seg.points?.get('loc')?.tree !== undefined, `${label}: the segment has a point index`);
  const scan = scanOnly(seg);
  let matched = 0;
  for (const f of filters) {
    const got = geoBits(query(f), seg);
    const want = geoBits(query(f), scan);
    assert.deepEqual(got, want, `${label}: ${JSON.stringify(f)}`);
    for (const w of want) for (let x = w; x !== 0; x &= x - 1) matched++;
  }
  return matched;
}

describe('geo point index', () => {
  const rand = prng(20);
  const filters = Array.from({ length: 300 }, () => randomFilter(rand));
  // Edge cases: whole world, a dateline box, polar caps, a circle around a pole, a box of one spot.
  filters.push(
    { type: 'box', minLat: -90, maxLat: 90, minLon: -180, maxLon: 180 },
    { type: 'box', minLat: -20, maxLat: 20, minLon: 179.9, maxLon: -179.9 },
    { type: 'box', minLat: 89, maxLat: 90, minLon: -180, maxLon: 180 },
    { type: 'box', minLat: -90, maxLat: -89.9, minLon: 170, maxLon: -170 },
    { type: 'distance', lat: 90, lon: 0, meters: 50_000, plane: false },
    { type: 'distance', lat: -89.995, lon: 179.999, meters: 5_000, plane: false },
    { type: 'distance', lat: 10, lon: 180, meters: 30_000, plane: false },
    { type: 'distance', lat: 0, lon: 0, meters: 15_000_000, plane: false },
    { type: 'box', minLat: 52.37, maxLat: 52.37, minLon: 4.9, maxLon: 4.9 },
  );

  const firstDocs = randomDocs(rand, 8000, 'a');
  const secondDocs = randomDocs(rand, 3000, 'b');
  const first = build(0, firstDocs);
  const second = build(1, secondDocs);

  test('the heap segment built at refresh answers every filter as the scan does', () => {
    const matched = assertSameAsScan(first, filters, 'heap');
    assert.ok(matched > 10_000, `the filters match something (${matched})`);
  });

  test('the written segment read through the memory map answers as the scan does', () => {
    const dir = tempSegmentDir();
    assert.ok(writeSegment(dir, 0, [{ segment: first, liveDocs: null }], { sync: false }) !== null);
    const mapped = MappedSegment.open(dir, 0);
    try {
      assertSameAsScan(mapped, filters, 'mapped');
      // The index holds every point once (multi-valued docs have one entry per point).
      const pv = mapped.points.get('loc')!;
      assert.equal(pv.tree!.docs.length, pv.starts[mapped.maxDoc]);
    } finally {
      mapped.close();
    }
  });

  test('a merge with deletes, and the merged segment reopened as after a restart, answer as the scan does', () => {
    const dir = tempSegmentDir();
    const live0 = newFullBitset(first.maxDoc);
    for (let d = 0; d < first.maxDoc; d += 3) clearBit(live0, d);
    const live1 = newFullBitset(second.maxDoc);
    for (let d = 1; d < second.maxDoc; d += 7) clearBit(live1, d);
    const written = writeSegment(dir, 5, [{ segment: first, liveDocs: live0 }, { segment: second, liveDocs: live1 }], { sync: false });
    assert.ok(written !== null);
    const merged = MappedSegment.open(dir, 5);
    assertSameAsScan(merged, filters, 'merged');
    // Every kept doc's answer is the answer of its source doc before the merge.
    for (const f of filters.slice(0, 40)) {
      const before = [geoBits(query(f), first), geoBits(query(f), second)];
      const after = geoBits(query(f), merged);
      written.docMaps.forEach((map, s) => {
        for (let d = 0; d < map.length; d++) {
          if (map[d]! < 0) continue;
          const was = (before[s]![d >>> 5]! >>> (d & 31)) & 1;
          const now = (after[map[d]! >>> 5]! >>> (map[d]! & 31)) & 1;
          assert.equal(now, was, `doc ${d} of segment ${s} under ${JSON.stringify(f)}`);
        }
      });
    }
    merged.close();
    const reopened = MappedSegment.open(dir, 5);
    try {
      assertSameAsScan(reopened, filters, 'reopened');
    } finally {
      reopened.close();
    }
  });

  test('a segment whose docs have no point has no point column; one whose only points were deleted neither', () => {
    const none = build(2, [bufferedDoc('x', [[tag, ['a']]]), bufferedDoc('y', [[tag, ['b']]])]);
    assert.equal(none.points?.get('loc'), undefined);
    assert.deepEqual([...geoBits(query(filters[0]!), none)], [0]);
    const withOne = build(3, [bufferedDoc('p', [[loc, [1, 2]]]), bufferedDoc('q', [[tag, ['b']]])]);
    const dir = tempSegmentDir();
    const live = newFullBitset(2);
    clearBit(live, 0);
    assert.ok(writeSegment(dir, 3, [{ segment: withOne, liveDocs: live }], { sync: false }) !== null);
    const mapped = MappedSegment.open(dir, 3);
    try {
      assert.equal(mapped.points.get('loc'), undefined);
      assert.deepEqual([...geoBits(query({ type: 'box', minLat: -90, maxLat: 90, minLon: -180, maxLon: 180 }), mapped)], [0]);
    } finally {
      mapped.close();
    }
  });

  test('a small box reads only the leaves it crosses, and takes whole nodes inside it unread', () => {
    const docs: BufferedDoc[] = [];
    const r = prng(3);
    for (let i = 0; i < 40 * LEAF_POINTS; i++) docs.push(bufferedDoc(`g${i}`, [[loc, [r() * 10, r() * 10]]]));
    const seg = build(4, docs);
    const tree = seg.points!.get('loc')!.tree!;
    assert.equal(tree.leafCount, 64);
    let crossed = 0;
    let taken = 0;
    // A box of a quarter of the area, as encoded integers (degrees * 2^32 / 180 or 360).
    const lat = (deg: number) => Math.floor((deg * 0x100000000) / 180);
    const lon = (deg: number) => Math.floor((deg * 0x100000000) / 360);
    const relate = (a: number, b: number, c: number, d: number): Relation => {
      if (b < lat(0) || a > lat(5) || d < lon(0) || c > lon(5)) return OUTSIDE;
      return a >= lat(0) && b <= lat(5) && c >= lon(0) && d <= lon(5) ? INSIDE : CROSSES;
    };
    visitPointTree(tree, relate, (from, to) => (taken += to - from), (from, to) => (crossed += to - from));
    assert.ok(crossed < docs.length / 2, `crossed ${crossed} of ${docs.length}`);
    assert.ok(taken > 0, 'some nodes are taken whole');
    const scan = geoBits(query({ type: 'box', minLat: 0, maxLat: 5, minLon: 0, maxLon: 5 }), scanOnly(seg));
    assert.deepEqual(geoBits(query({ type: 'box', minLat: 0, maxLat: 5, minLon: 0, maxLon: 5 }), seg), scan);
  });
});
