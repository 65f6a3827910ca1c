/**
 * Proleptic Gregorian calendar arithmetic (Joda's ISOChronology) on plain
 * numbers: days since 1970-01-01 and back, without `Date` objects, so the date
 * parsers and date math stay allocation-free.
 */

export const MILLIS_PER_SECOND = 1000;
export const MILLIS_PER_MINUTE = 60_000;
export const MILLIS_PER_HOUR = 3_600_000;
export const MILLIS_PER_DAY = 86_400_000;

export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

export function floorMod(a: number, b: number): number {
  const r = a % b;
  return r < 0 ? r + b : r + 0; // `+ 0` turns -0 into 0
}

export function isLeapYear(y: number): boolean {
  return (y & 3) === 0 && (y % 100 !== 0 || y % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[m - 1];
}

export function daysInYear(y: number): number {
  return isLeapYear(y) ? 366 : 365;
}

/** Days since 1970-01-01 of a civil date (month 1..12). Howard Hinnant's `days_from_civil`. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Writes [year, month, day] of days since 1970-01-01 into `out` (Hinnant's `civil_from_days`). */
export function civilFromDays(days: number, out: Int32Array | number[]): void {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  out[0] = yoe + era * 400 + (m <= 2 ? 1 : 0);
  out[1] = m;
  out[2] = d;
}

/** ISO day of week, 1 = Monday .. 7 = Sunday (1970-01-01 was a Thursday). */
export function isoDayOfWeek(days: number): number {
  return floorMod(days + 3, 7) + 1;
}

/** Days since epoch of the Monday that starts ISO week 1 of `weekyear` (the week holding January 4th). */
export function weekyearStart(weekyear: number): number {
  const jan4 = daysFromCivil(weekyear, 1, 4);
  return jan4 - (isoDayOfWeek(jan4) - 1);
}

export function weeksInWeekyear(weekyear: number): number {
  return (weekyearStart(weekyear + 1) - weekyearStart(weekyear)) / 7;
}

/** ISO week-based year of a day. */
export function weekyearOf(days: number): number {
  const ymd = [0, 0, 0];
  civilFromDays(days, ymd);
  let wy = ymd[0];
  if (days < weekyearStart(wy)) wy--;
  else if (days >= weekyearStart(wy + 1)) wy++;
  return wy;
}
