/**
 * Well-known text shapes as Elasticsearch 6.8's GeoWKTParser reads them, on
 * the same tokens as Java's StreamTokenizer there (words of letters, digits,
 * `-`, `+`, `.`; `(`, `)`, `,` alone; `#` starts a comment): POINT,
 * MULTIPOINT, LINESTRING, MULTILINESTRING, POLYGON, MULTIPOLYGON,
 * BBOX/ENVELOPE (minLon, maxLon, maxLat, minLat), GEOMETRYCOLLECTION and
 * EMPTY, with its error texts. WKT polygons are read with the right-hand
 * rule whatever the field's orientation, as 6.8 reads them.
 */
import { elasticsearchParseException, illegalArgument, type EsError } from '../../errors/es-errors.ts';
import { assertZValue, shapeKind, spend, type ShapeOptions, type VertexBudget } from './geojson-parser.ts';
import { addEnvelope, addLine, addPoint, addPolygon } from './shape-build.ts';
import type { ShapeKind, ShapeParts } from './shape-model.ts';

const EOF = -1;
const WORD = -3;
const EMPTY = 'EMPTY';

class Tokens {
  private pos = 0;
  private pushedBack = false;
  type = 0;
  word = '';

  constructor(private readonly text: string) {}

  private isWordChar(c: number): boolean {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || (c >= 160 && c <= 255);
  }

  next(): number {
    if (this.pushedBack) {
      this.pushedBack = false;
      return this.type;
    }
    const s = this.text;
    for (;;) {
      if (this.pos >= s.length) return (this.type = EOF);
      const c = s.charCodeAt(this.pos);
      if (c <= 32) {
        this.pos++;
        continue;
      }
      if (c === 35) {
        // comment to the end of the line
        while (this.pos < s.length && s.charCodeAt(this.pos) !== 10 && s.charCodeAt(this.pos) !== 13) this.pos++;
        continue;
      }
      if (this.isWordChar(c)) {
        const start = this.pos;
        while (this.pos < s.length && this.isWordChar(s.charCodeAt(this.pos))) this.pos++;
        this.word = s.slice(start, this.pos);
        return (this.type = WORD);
      }
      this.pos++;
      return (this.type = c);
    }
  }

  pushBack(): void {
    this.pushedBack = true;
  }

  describe(): string {
    if (this.type === WORD) return this.word;
    if (this.type === EOF) return 'END-OF-STREAM';
    return `'${String.fromCharCode(this.type)}'`;
  }
}

function err(reason: string): EsError {
  return elasticsearchParseException(reason);
}

function nextWord(t: Tokens): string {
  const type = t.next();
  if (type === WORD) return t.word.toUpperCase() === EMPTY ? EMPTY : t.word;
  if (type === 40) return '(';
  if (type === 41) return ')';
  if (type === 44) return ',';
  throw err(`expected word but found: ${t.describe()}`);
}

/** Double.parseDouble's decimal forms (`1`, `-1.5`, `.5`, `1.`, `1e-3`, a trailing d or f). */
function javaDouble(s: string): number | null {
  let i = 0;
  const n = s.length;
  if (i < n && (s[i] === '+' || s[i] === '-')) i++;
  let digits = 0;
  while (i < n && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
    i++;
    digits++;
  }
  if (i < n && s[i] === '.') {
    i++;
    while (i < n && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return null;
  if (i < n && (s[i] === 'e' || s[i] === 'E')) {
    i++;
    if (i < n && (s[i] === '+' || s[i] === '-')) i++;
    let exp = 0;
    while (i < n && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
      i++;
      exp++;
    }
    if (exp === 0) return null;
  }
  const end = i;
  if (i < n && 'dDfF'.includes(s[i]!)) i++;
  if (i !== n) return null;
  return Number(s.slice(0, end));
}

function nextNumber(t: Tokens): number {
  if (t.next() === WORD) {
    if (t.word.toUpperCase() === 'NAN') return NaN;
    const v = javaDouble(t.word);
    if (v === null) throw err(`invalid number found: ${t.word}`);
    return v;
  }
  throw err(`expected number but found: ${t.describe()}`);
}

function isNumberNext(t: Tokens): boolean {
  const type = t.next();
  t.pushBack();
  return type === WORD;
}

function nextEmptyOrOpen(t: Tokens): string {
  const w = nextWord(t);
  if (w === EMPTY || w === '(') return w;
  throw err(`expected ${EMPTY} or ( but found: ${t.describe()}`);
}

function nextCloser(t: Tokens): void {
  if (nextWord(t) !== ')') throw err(`expected ) but found: ${t.describe()}`);
}

function nextComma(t: Tokens): void {
  if (nextWord(t) !== ',') throw err(`expected , but found: ${t.describe()}`);
}

function nextCloserOrComma(t: Tokens): string {
  const w = nextWord(t);
  if (w === ',' || w === ')') return w;
  throw err(`expected , or ) but found: ${t.describe()}`);
}

interface Ctx {
  readonly t: Tokens;
  readonly opts: ShapeOptions;
  readonly parts: ShapeParts;
  readonly budget: VertexBudget;
}

function coordinate(c: Ctx, out: number[]): void {
  const lon = nextNumber(c.t);
  const lat = nextNumber(c.t);
  if (isNumberNext(c.t)) assertZValue(c.opts.ignoreZValue, nextNumber(c.t));
  spend(c.budget, 1);
  out.push(lon, lat);
}

function coordinateList(c: Ctx): number[] {
  const out: number[] = [];
  const one = (): void => {
    let open = false;
    if (isNumberNext(c.t) || (open = nextWord(c.t) === '(')) coordinate(c, out);
    if (open && nextWord(c.t) !== ')') throw err(`expected: ) but found: ${c.t.describe()}`);
  };
  one();
  while (nextCloserOrComma(c.t) === ',') one();
  return out;
}

function lineString(c: Ctx): number[] | null {
  if (nextEmptyOrOpen(c.t) === EMPTY) return null;
  const xy = coordinateList(c);
  if (xy.length < 4) throw illegalArgument(`invalid number of points in LineString (found [${xy.length / 2}] - must be >= 2)`);
  return xy;
}

function linearRing(c: Ctx): number[] {
  if (nextEmptyOrOpen(c.t) === EMPTY) throw err('expected ( but found: EMPTY');
  const xy = coordinateList(c);
  const need = c.opts.coerce ? 3 : 4;
  if (xy.length / 2 >= need && (xy[0] !== xy[xy.length - 2] || xy[1] !== xy[xy.length - 1])) {
    if (c.opts.coerce) xy.push(xy[0]!, xy[1]!);
    else throw err('invalid LinearRing found (coordinates are not closed)');
  }
  if (xy.length / 2 < 4) throw err(`invalid number of points in LinearRing (found [${xy.length / 2}] - must be >= 4)`);
  return xy;
}

function polygon(c: Ctx): number[][] | null {
  if (nextEmptyOrOpen(c.t) === EMPTY) return null;
  const rings = [linearRing(c)];
  while (nextCloserOrComma(c.t) === ',') rings.push(linearRing(c));
  return rings;
}

/** GeoWKTParser.parseGeometry: one geometry into parts; its kind, or null for EMPTY. */
function geometry(c: Ctx, depth: number): ShapeKind | null {
  if (depth > 16) throw err('geometry collections nest deeper than this server accepts (16)');
  const kind = shapeKind(nextWord(c.t));
  const t = c.t;
  switch (kind) {
    case 'point': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      const xy: number[] = [];
      coordinate(c, xy);
      nextCloser(t);
      addPoint(c.parts, xy[0]!, xy[1]!);
      return kind;
    }
    case 'multipoint': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      const xy = coordinateList(c);
      for (let i = 0; i < xy.length; i += 2) addPoint(c.parts, xy[i]!, xy[i + 1]!);
      return kind;
    }
    case 'linestring': {
      const xy = lineString(c);
      if (xy === null) return null;
      addLine(c.parts, xy);
      return kind;
    }
    case 'multilinestring': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      do {
        const xy = lineString(c);
        if (xy !== null) addLine(c.parts, xy);
      } while (nextCloserOrComma(t) === ',');
      return kind;
    }
    case 'polygon': {
      const rings = polygon(c);
      if (rings === null) return null;
      addPolygon(c.parts, rings, true);
      return kind;
    }
    case 'multipolygon': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      do {
        const rings = polygon(c);
        if (rings !== null) addPolygon(c.parts, rings, true);
      } while (nextCloserOrComma(t) === ',');
      return kind;
    }
    case 'envelope': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      const minLon = nextNumber(t);
      nextComma(t);
      const maxLon = nextNumber(t);
      nextComma(t);
      const maxLat = nextNumber(t);
      nextComma(t);
      const minLat = nextNumber(t);
      nextCloser(t);
      spend(c.budget, 2);
      addEnvelope(c.parts, minLon, maxLat, maxLon, minLat);
      return kind;
    }
    case 'geometrycollection': {
      if (nextEmptyOrOpen(t) === EMPTY) return null;
      do geometry(c, depth + 1);
      while (nextCloserOrComma(t) === ',');
      return kind;
    }
    default:
      throw illegalArgument(`Unknown geometry type: ${kind}`);
  }
}

/** A WKT string's shape into parts; its kind, or null for an EMPTY geometry (nothing to index). */
export function parseWkt(text: string, opts: ShapeOptions, parts: ShapeParts, budget: VertexBudget): ShapeKind | null {
  const c: Ctx = { t: new Tokens(text), opts, parts, budget };
  const kind = geometry(c, 0);
  if (c.t.next() !== EOF) throw err(`expected end of WKT string but found additional text: ${c.t.describe()}`);
  return kind;
}
