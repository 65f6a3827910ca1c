/**
 * Geo filters over a segment's point values (geo_point fields), as Lucene's
 * LatLonPoint queries decide them: a bounding box compares the quantised
 * coordinates with the box's quantised edges; a distance and a polygon test
 * the decoded point. A distance filter first rejects, on the integers, the
 * points outside the circle's bounding box.
 */
import { decodeLatitude, decodeLongitude, encodeLatitude, encodeLatitudeCeil, encodeLongitude, encodeLongitudeCeil, haversinMeters, planeMeters, EARTH_MEAN_RADIUS } from '../mapping/geo-point.ts';
import type { PointValues, Segment } from '../segment/types.ts';
import { wordsFor } from './doc-bits.ts';
import type { GeoFilter, GeoQuery } from './query.ts';

/** A test of one encoded point. */
type PointTest = (lat: number, lon: number) => boolean;

function boxTest(f: GeoFilter & { type: 'box' }): PointTest {
  const minLat = encodeLatitudeCeil(f.minLat);
  const maxLat = encodeLatitude(f.maxLat);
  const minLon = encodeLongitudeCeil(f.minLon);
  const maxLon = encodeLongitude(f.maxLon);
  if (f.minLon > f.maxLon) {
    // crosses the dateline: two boxes
    return (la, lo) => la >= minLat && la <= maxLat && (lo >= minLon || lo <= maxLon);
  }
  return (la, lo) => la >= minLat && la <= maxLat && lo >= minLon && lo <= maxLon;
}

function distanceTest(f: GeoFilter & { type: 'distance' }): PointTest {
  const { lat, lon, meters } = f;
  const measure = f.plane ? planeMeters : haversinMeters;
  // Degrees of latitude the radius spans, widened a little for the quantisation: a cheap first test.
  const dLat = (meters / EARTH_MEAN_RADIUS) * (180 / Math.PI) + 1e-6;
  const minLat = encodeLatitude(Math.max(-90, lat - dLat));
  const maxLat = encodeLatitude(Math.min(90, lat + dLat));
  return (la, lo) => {
    if (la < minLat || la > maxLat) return false;
    return measure(lat, lon, decodeLatitude(la), decodeLongitude(lo)) <= meters;
  };
}

/** Ray casting over the polygon's edges (a point on an edge may fall either way, as in Lucene). */
function polygonTest(f: GeoFilter & { type: 'polygon' }): PointTest {
  const { lats, lons } = f;
  let minLat = Infinity;
  let maxLat = -Infinity;
  for (const l of lats) {
    if (l < minLat) minLat = l;
    if (l > maxLat) maxLat = l;
  }
  const encMin = encodeLatitude(minLat);
  const encMax = encodeLatitude(maxLat) + 1;
  const n = lats.length;
  return (la, lo) => {
    if (la < encMin || la > encMax) return false;
    const y = decodeLatitude(la);
    const x = decodeLongitude(lo);
    let inside = false;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const yi = lats[i]!;
      const yj = lats[j]!;
      if (yi > y !== yj > y) {
        const xCross = ((lons[j]! - lons[i]!) * (y - yi)) / (yj - yi) + lons[i]!;
        if (x < xCross) inside = !inside;
      }
    }
    return inside;
  };
}

export function pointTest(f: GeoFilter): PointTest {
  switch (f.type) {
    case 'box':
      return boxTest(f);
    case 'distance':
      return distanceTest(f);
    case 'polygon':
      return polygonTest(f);
  }
}

/** Docs with at least one point passing the filter. */
export function geoBits(q: GeoQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const pv: PointValues | undefined = seg.points?.get(q.field);
  if (pv === undefined) return bits;
  const test = pointTest(q.filter);
  const { values, starts } = pv;
  for (let d = 0; d < seg.maxDoc; d++) {
    for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
      if (test(values[2 * i]!, values[2 * i + 1]!)) {
        bits[d >>> 5]! |= 1 << (d & 31);
        break;
      }
    }
  }
  return bits;
}
