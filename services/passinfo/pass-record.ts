/**
 * The pass record (schemas/pass-record.avsc) and the checks a record must
 * pass before it is indexed. A record that fails them goes to the dead-letter
 * topic with the reason (dead-letter.ts), never silently away.
 */
import { checkpointLocation, type GeoPoint } from './checkpoint-map.ts';
import { parsePassTime } from './pass-time.ts';

export interface PassRecord {
  event_id: string;
  event_type: number;
  land_id: string;
  land_picture: string | null;
  pass_time: string;
  plate: string;
  plate_category: number;
  plate_color: number;
  plate_picture: string | null;
  speed: number;
  vehicle_category: number;
  vehicle_color: number;
  vehicle_length: number;
  /** Where the pass was seen: as the record gives it, otherwise its checkpoint's place (checkpoint-map.ts). */
  location: GeoPoint;
}

const INT_FIELDS = ['event_type', 'plate_category', 'plate_color', 'speed', 'vehicle_category', 'vehicle_color', 'vehicle_length'] as const;
const STRING_FIELDS = ['event_id', 'land_id', 'pass_time', 'plate'] as const;
const PICTURE_FIELDS = ['land_picture', 'plate_picture'] as const;
/** Longest id or plate we accept; anything longer is a producer bug, not a pass. */
const MAX_ID_LENGTH = 256;
const MAX_PLATE_LENGTH = 16;
/** Avro int range (the schema's numeric codes are ints). */
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

export type Validation = { readonly ok: true; readonly record: PassRecord } | { readonly ok: false; readonly reason: string };

/**
 * Checks an untrusted value (a decoded Avro record, a JSON line, a CSV row
 * made into an object) and returns the normalised record or why it is refused.
 */
export function validatePassRecord(value: unknown): Validation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not an object' };
  const v = value as Record<string, unknown>;
  for (const f of STRING_FIELDS) {
    const s = v[f];
    if (typeof s !== 'string' || s.trim().length === 0) return { ok: false, reason: `[${f}] is missing or empty` };
  }
  const eventId = v.event_id as string;
  if (eventId.length > MAX_ID_LENGTH) return { ok: false, reason: `[event_id] is longer than ${MAX_ID_LENGTH} characters` };
  const plate = (v.plate as string).trim();
  if (plate.length > MAX_PLATE_LENGTH) return { ok: false, reason: `[plate] [${plate}] is longer than ${MAX_PLATE_LENGTH} characters` };
  if (parsePassTime(v.pass_time as string) === null) {
    return { ok: false, reason: `[pass_time] [${String(v.pass_time)}] is not a date of format yyyy-MM-dd HH:mm:ss` };
  }
  for (const f of INT_FIELDS) {
    const n = v[f];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < INT_MIN || n > INT_MAX) {
      return { ok: false, reason: `[${f}] [${String(n)}] is not an integer` };
    }
  }
  if ((v.speed as number) < 0) return { ok: false, reason: `[speed] [${String(v.speed)}] is negative` };
  for (const f of PICTURE_FIELDS) {
    const p = v[f];
    if (p !== undefined && p !== null && typeof p !== 'string') return { ok: false, reason: `[${f}] is not a string` };
  }
  const location = locationOf(v.location, (v.land_id as string).trim());
  if (typeof location === 'string') return { ok: false, reason: location };
  return {
    ok: true,
    record: {
      event_id: eventId,
      event_type: v.event_type as number,
      land_id: (v.land_id as string).trim(),
      land_picture: (v.land_picture as string | null | undefined) ?? null,
      pass_time: v.pass_time as string,
      plate,
      plate_category: v.plate_category as number,
      plate_color: v.plate_color as number,
      plate_picture: (v.plate_picture as string | null | undefined) ?? null,
      speed: v.speed as number,
      vehicle_category: v.vehicle_category as number,
      vehicle_color: v.vehicle_color as number,
      vehicle_length: v.vehicle_length as number,
      location,
    },
  };
}

/** A record's own `{lat, lon}`, or its checkpoint's place when it has none; a string says why it is refused. */
function locationOf(value: unknown, landId: string): GeoPoint | string {
  if (value === undefined || value === null) return checkpointLocation(landId);
  if (typeof value !== 'object' || Array.isArray(value)) return '[location] must be an object {lat, lon}';
  const { lat, lon } = value as { lat?: unknown; lon?: unknown };
  if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) return `[location.lat] [${String(lat)}] is not a latitude from -90 to 90`;
  if (typeof lon !== 'number' || !Number.isFinite(lon) || lon < -180 || lon > 180) return `[location.lon] [${String(lon)}] is not a longitude from -180 to 180`;
  return { lat, lon };
}

/** Field order of the CSV import and of the schema. */
export const PASS_RECORD_FIELDS = [
  'event_id',
  'event_type',
  'land_id',
  'land_picture',
  'pass_time',
  'plate',
  'plate_category',
  'plate_color',
  'plate_picture',
  'speed',
  'vehicle_category',
  'vehicle_color',
  'vehicle_length',
] as const satisfies readonly (keyof PassRecord)[];

export const NUMERIC_FIELDS: ReadonlySet<string> = new Set(INT_FIELDS);
