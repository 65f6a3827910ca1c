/**
 * Geo filters over a segment's point values (geo_point fields), as Lucene's
 * LatLonPoint queries decide them: a bounding box compares the quantised
 * coordinates with the box's quantised edges; a distance and a polygon test
 * the decoded point, after the integers rejected the points outside the
 * circle's or polygon's bounding box. A segment with a point index
 * (point-tree.ts) is answered through it: the band and the shape judge each
 * node's box, so only the leaves the shape's edge crosses are tested point by
 * point, with the same tests as the scan (and the same answer).
 */
import { decodeLatitude, decodeLongitude, encodeLatitude, encodeLatitudeCeil, encodeLongitude, encodeLongitudeCeil, haversinMeters, planeMeters, EARTH_MEAN_RADIUS } from '../mapping/geo-point.ts';
import { CROSSES, INSIDE, OUTSIDE, visitPointTree, type PointTree, type Relation } from '../segment/point-tree.ts';
import type { PointValues, Segment } from '../segment/types.ts';
import { wordsFor } from './doc-bits.ts';
import type { GeoFilter, GeoQuery } from './query.ts';

/**
 * A filter as an encoded latitude/longitude band that every match lies in
 * (checked inline on the integers) and, when the band is not the answer by
 * itself, an exact test of the decoded point.
 */
interface Band {
  readonly minLat: number;
  readonly maxLat: number;
  /** Longitude band; when minLon > maxLon it wraps across the dateline. */
  readonly minLon: number;
  readonly maxLon: number;
  readonly exact: ((lat: number, lon: number) => boolean) | null;
  /**
   * For `exact` shapes: whether every point of an encoded box the band holds
   * passes `exact` (INSIDE), none does (OUTSIDE), or it cannot tell (CROSSES).
   * Conservative: CROSSES is always a right answer.
   */
  readonly relateBox: ((minLat: number, maxLat: number, minLon: number, maxLon: number) => Relation) | null;
}

const INT_MIN = -0x80000000;
const INT_MAX = 0x7fffffff;

function boxBand(f: GeoFilter & { type: 'box' }): Band {
  return {
    minLat: encodeLatitudeCeil(f.minLat),
    maxLat: encodeLatitude(f.maxLat),
    minLon: encodeLongitudeCeil(f.minLon),
    maxLon: encodeLongitude(f.maxLon),
    exact: null,
    relateBox: null,
  };
}

function distanceBand(f: GeoFilter & { type: 'distance' }): Band {
  const { lat, lon, meters } = f;
  const measure = f.plane ? planeMeters : haversinMeters;
  // Degrees the radius spans, widened a little for the quantisation.
  const dLat = (meters / EARTH_MEAN_RADIUS) * (180 / Math.PI) + 1e-6;
  const minLatDeg = lat - dLat;
  const maxLatDeg = lat + dLat;
  let minLon = INT_MIN;
  let maxLon = INT_MAX;
  const farthestLat = Math.max(Math.abs(minLatDeg), Math.abs(maxLatDeg));
  if (farthestLat < 89) {
    const dLon = dLat / Math.cos((farthestLat * Math.PI) / 180) + 1e-6;
    if (dLon < 180) {
      const lo = lon - dLon;
      const hi = lon + dLon;
      // a band past the dateline wraps: minLon > maxLon
      minLon = encodeLongitude(lo < -180 ? lo + 360 : lo);
      maxLon = encodeLongitude(hi > 180 ? hi - 360 : hi);
    }
  }
  const exact = (la: number, lo: number): boolean => measure(lat, lon, decodeLatitude(la), decodeLongitude(lo)) <= meters;
  // A margin for rounding: a box whose corners are this close to the circle is checked point by point.
  const within = meters - (1e-3 + meters * 1e-9);
  return {
    minLat: encodeLatitude(Math.max(-90, minLatDeg)),
    maxLat: encodeLatitude(Math.min(90, maxLatDeg)),
    minLon,
    maxLon,
    exact,
    // Only for the haversine: on a sphere the farthest point of a box whose meridians lie within
    // 90 degrees of the centre's is one of its corners (along a parallel the distance grows with the
    // longitude difference; along such a meridian it falls, then rises). The plane formula has no
    // such shape, so its boxes are always checked point by point.
    relateBox: f.plane
      ? null
      : (minLa, maxLa, minLo, maxLo) => {
          const west = decodeLongitude(minLo);
          const east = decodeLongitude(maxLo);
          if (east - west >= 178 || Math.abs(lonDelta(west, lon)) > 89 || Math.abs(lonDelta(east, lon)) > 89) return CROSSES;
          const south = decodeLatitude(minLa);
          const north = decodeLatitude(maxLa);
          const far = Math.max(haversinMeters(lat, lon, south, west), haversinMeters(lat, lon, south, east), haversinMeters(lat, lon, north, west), haversinMeters(lat, lon, north, east));
          return far <= within ? INSIDE : CROSSES;
        },
  };
}

/** b - a in degrees of longitude, in (-180, 180]. */
function lonDelta(b: number, a: number): number {
  let d = b - a;
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

/** Ray casting over the polygon's edges (a point on an edge may fall either way, as in Lucene). */
function polygonBand(f: GeoFilter & { type: 'polygon' }): Band {
  const { lats, lons } = f;
  const n = lats.length;
  const contains = (y: number, x: number): boolean => {
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
  return {
    minLat: encodeLatitude(Math.min(...lats)),
    maxLat: encodeLatitude(Math.max(...lats)) + 1,
    minLon: encodeLongitude(Math.min(...lons)),
    maxLon: encodeLongitude(Math.max(...lons)) + 1,
    exact: (la, lo) => contains(decodeLatitude(la), decodeLongitude(lo)),
    // A box no edge comes near lies wholly inside or wholly outside: its centre tells which.
    relateBox: (minLa, maxLa, minLo, maxLo) => {
      const south = decodeLatitude(minLa) - EDGE_MARGIN;
      const north = decodeLatitude(maxLa) + EDGE_MARGIN;
      const west = decodeLongitude(minLo) - EDGE_MARGIN;
      const east = decodeLongitude(maxLo) + EDGE_MARGIN;
      for (let i = 0, j = n - 1; i < n; j = i++) {
        if (segmentMeetsBox(lons[j]!, lats[j]!, lons[i]!, lats[i]!, west, south, east, north)) return CROSSES;
      }
      return contains((south + north) / 2, (west + east) / 2) ? INSIDE : OUTSIDE;
    },
  };
}

/** Degrees a polygon's edge must keep from a box for the box to be judged whole (far above rounding). */
const EDGE_MARGIN = 1e-7;

/** Whether the segment (x0, y0)-(x1, y1) meets the box (Liang-Barsky clipping). */
function segmentMeetsBox(x0: number, y0: number, x1: number, y1: number, west: number, south: number, east: number, north: number): boolean {
  const dx = x1 - x0;
  const dy = y1 - y0;
  let t0 = 0;
  let t1 = 1;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  return clip(-dx, x0 - west) && clip(dx, east - x0) && clip(-dy, y0 - south) && clip(dy, north - y0);
}

function bandOf(f: GeoFilter): Band {
  switch (f.type) {
    case 'box':
      return boxBand(f);
    case 'distance':
      return distanceBand(f);
    case 'polygon':
      return polygonBand(f);
  }
}

/** Docs with at least one point passing the filter. */
export function geoBits(q: GeoQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const pv: PointValues | undefined = seg.points?.get(q.field);
  if (pv === undefined) return bits;
  const band = bandOf(q.filter);
  if (pv.tree !== undefined) {
    treeBits(pv.tree, band, bits);
    return bits;
  }
  const { minLat, maxLat, minLon, maxLon, exact } = band;
  const wraps = minLon > maxLon;
  const values = pv.values;
  const starts = pv.starts;
  const maxDoc = seg.maxDoc;
  for (let d = 0; d < maxDoc; d++) {
    for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
      const la = values[2 * i]!;
      if (la < minLat || la > maxLat) continue;
      const lo = values[2 * i + 1]!;
      if (wraps ? lo < minLon && lo > maxLon : lo < minLon || lo > maxLon) continue;
      if (exact !== null && !exact(la, lo)) continue;
      bits[d >>> 5]! |= 1 << (d & 31);
      break;
    }
  }
  return bits;
}

/** geoBits through the point index: the same band and exact tests, applied to whole nodes where they can be. */
function treeBits(tree: PointTree, band: Band, bits: Uint32Array): void {
  const { minLat, maxLat, minLon, maxLon, exact, relateBox } = band;
  const wraps = minLon > maxLon;
  const { docs, coords } = tree;
  const relate = (bMinLat: number, bMaxLat: number, bMinLon: number, bMaxLon: number): Relation => {
    if (bMaxLat < minLat || bMinLat > maxLat) return OUTSIDE;
    if (wraps ? bMinLon > maxLon && bMaxLon < minLon : bMaxLon < minLon || bMinLon > maxLon) return OUTSIDE;
    const latIn = bMinLat >= minLat && bMaxLat <= maxLat;
    const lonIn = wraps ? bMinLon >= minLon || bMaxLon <= maxLon : bMinLon >= minLon && bMaxLon <= maxLon;
    if (!latIn || !lonIn) return CROSSES;
    if (exact === null) return INSIDE;
    return relateBox === null ? CROSSES : relateBox(bMinLat, bMaxLat, bMinLon, bMaxLon);
  };
  const inside = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const d = docs[i]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  };
  const crossing = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const la = coords[2 * i]!;
      if (la < minLat || la > maxLat) continue;
      const lo = coords[2 * i + 1]!;
      if (wraps ? lo < minLon && lo > maxLon : lo < minLon || lo > maxLon) continue;
      if (exact !== null && !exact(la, lo)) continue;
      const d = docs[i]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  };
  visitPointTree(tree, relate, inside, crossing);
}
