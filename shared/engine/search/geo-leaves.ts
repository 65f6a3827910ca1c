/**
 * Geo filters over a segment's point values (geo_point fields), as Lucene's
 * LatLonPoint queries decide them: a bounding box compares the quantised
 * coordinates with the box's quantised edges; a distance and a polygon test
 * the decoded point, after the integers rejected the points outside the
 * circle's or polygon's bounding box.
 */
import { decodeLatitude, decodeLongitude, encodeLatitude, encodeLatitudeCeil, encodeLongitude, encodeLongitudeCeil, haversinMeters, planeMeters, EARTH_MEAN_RADIUS } from '../mapping/geo-point.ts';
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
  return {
    minLat: encodeLatitude(Math.max(-90, minLatDeg)),
    maxLat: encodeLatitude(Math.min(90, maxLatDeg)),
    minLon,
    maxLon,
    exact: (la, lo) => measure(lat, lon, decodeLatitude(la), decodeLongitude(lo)) <= meters,
  };
}

/** Ray casting over the polygon's edges (a point on an edge may fall either way, as in Lucene). */
function polygonBand(f: GeoFilter & { type: 'polygon' }): Band {
  const { lats, lons } = f;
  const n = lats.length;
  return {
    minLat: encodeLatitude(Math.min(...lats)),
    maxLat: encodeLatitude(Math.max(...lats)) + 1,
    minLon: encodeLongitude(Math.min(...lons)),
    maxLon: encodeLongitude(Math.max(...lons)) + 1,
    exact: (la, lo) => {
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
    },
  };
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
  const { minLat, maxLat, minLon, maxLon, exact } = bandOf(q.filter);
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
