/**
 * Document values of the field types whose JSON is not a plain scalar of
 * their own kind: `binary` (base64 text, checked as Jackson decodes it) and
 * `geo_point` (objects, arrays and strings; see geo-point.ts). Kept apart
 * from the document parser so the parser only dispatches.
 */
import { elasticsearchParseException, illegalArgumentCause, type EsError } from '../../errors/es-errors.ts';
import { checkGeoPoint, normalizePoint, parseGeoPoints } from './geo-point.ts';
import type { JodaDateFormatter } from './date-format.ts';
import type { LeafNode } from './mapping-nodes.ts';
import { parseRangeValues, type RangeFieldType } from './range-values.ts';
import { jacksonTokenName as tokenName } from '../../json/token-names.ts';

function isBase64Char(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

function illegalChar(ch: string, code: number): EsError {
  return illegalArgumentCause(`Illegal character '${ch}' (code 0x${code.toString(16)}) in base64 content`);
}

/**
 * A binary field's value: base64 text (Jackson's MIME_NO_LINEFEEDS variant:
 * padding optional at the end, whitespace skipped). The text is what `_source`
 * keeps; nothing is indexed, so only its validity matters here.
 */
export function binaryValue(raw: unknown): string {
  if (typeof raw !== 'string') {
    throw illegalArgumentCause(`Current token (${tokenName(raw)}) not VALUE_STRING or VALUE_EMBEDDED_OBJECT, can not access as binary`);
  }
  let padding = 0;
  let chars = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    if (c === 61) {
      padding++;
      if (padding > 2 || (chars + padding) % 4 === 1) throw illegalChar('=', c);
      continue;
    }
    if (padding > 0 || !isBase64Char(c)) throw illegalChar(raw[i]!, c);
    chars++;
  }
  if (chars % 4 === 1) throw elasticsearchParseException('Unexpected end of base64-encoded String: base64 variant \'MIME-NO-LINEFEEDS\' expects padding (one or more \'=\' characters) at the end');
  return raw;
}

/**
 * The points of a geo_point value as [lat, lon, ...]: checked against the
 * valid ranges, or normalised into them with `ignore_malformed`.
 */
export function geoPointValues(raw: unknown, field: string, ignoreZValue: boolean, ignoreMalformed: boolean): number[] {
  const points = parseGeoPoints(raw, ignoreZValue);
  for (let i = 0; i < points.length; i += 2) {
    if (ignoreMalformed) {
      const [lat, lon] = normalizePoint(points[i]!, points[i + 1]!);
      points[i] = lat;
      points[i + 1] = lon;
    } else {
      checkGeoPoint(points[i]!, points[i + 1]!, field);
    }
  }
  return points;
}

/** A range field's ranges as [lower end..., upper end...] each (range-values.ts). */
export function rangeValues(leaf: LeafNode, raw: unknown): number[] {
  return parseRangeValues(leaf.type as RangeFieldType, raw, leaf.path, { coerce: leaf.opts.coerce ?? true, formatter: leaf.formatter as JodaDateFormatter | null });
}
