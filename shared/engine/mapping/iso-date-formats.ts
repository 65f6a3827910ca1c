/**
 * Elasticsearch 6.8's named date formats (`date_optional_time`, `strict_date`,
 * `basic_date_time`, `epoch_millis`, ...), built as Joda's ISODateTimeFormat
 * and Elasticsearch's StrictISODateTimeFormat build them. The lenient ones
 * parse variable-width numbers (`2015-1-5`); the `strict_` ones need the full
 * widths (4-digit year, 2-digit month, ...). camelCase names are accepted too.
 */
import {
  F_DAY,
  F_DAY_OF_WEEK,
  F_DAY_OF_YEAR,
  F_FRACTION_OF_HOUR,
  F_FRACTION_OF_MINUTE,
  F_FRACTION_OF_SECOND,
  F_HOUR,
  F_MINUTE,
  F_MONTH,
  F_SECOND,
  F_WEEK,
  F_WEEKYEAR,
  F_YEAR,
  alternatives,
  epoch,
  fixed,
  fraction,
  lit,
  num,
  offset,
  optional,
  type DateStep,
  type FormatSteps,
  type Steps,
} from './date-steps.ts';

/** The elements of one family (lenient Joda or strict Elasticsearch). */
interface Elements {
  year: DateStep;
  weekyear: DateStep;
  month: DateStep;
  day: DateStep;
  week: DateStep;
  dayOfWeek: DateStep;
  dayOfYear: DateStep;
  hour: DateStep;
  minute: DateStep;
  second: DateStep;
  basicYear: DateStep;
  basicWeekyear: DateStep;
}

const LENIENT: Elements = {
  year: num(F_YEAR, 4, 9, true),
  weekyear: num(F_WEEKYEAR, 4, 9, true),
  month: num(F_MONTH, 2, 2),
  day: num(F_DAY, 2, 2),
  week: num(F_WEEK, 2, 2),
  dayOfWeek: num(F_DAY_OF_WEEK, 1, 1),
  dayOfYear: num(F_DAY_OF_YEAR, 3, 3),
  hour: num(F_HOUR, 2, 2),
  minute: num(F_MINUTE, 2, 2),
  second: num(F_SECOND, 2, 2),
  basicYear: num(F_YEAR, 4, 4, true),
  basicWeekyear: num(F_WEEKYEAR, 4, 4, true),
};

const STRICT: Elements = {
  year: fixed(F_YEAR, 4, true),
  weekyear: fixed(F_WEEKYEAR, 4, true),
  month: fixed(F_MONTH, 2),
  day: fixed(F_DAY, 2),
  week: fixed(F_WEEK, 2),
  dayOfWeek: fixed(F_DAY_OF_WEEK, 1),
  dayOfYear: fixed(F_DAY_OF_YEAR, 3),
  hour: fixed(F_HOUR, 2),
  minute: fixed(F_MINUTE, 2),
  second: fixed(F_SECOND, 2),
  basicYear: fixed(F_YEAR, 4, true),
  basicWeekyear: fixed(F_WEEKYEAR, 4, true),
};

const ISO_OFFSET = offset('Z', true, 2, 4);
const BASIC_OFFSET = offset('Z', false, 2, 2);
const T = lit('T');

function both(steps: Steps): FormatSteps {
  return { parser: steps, printer: steps };
}

function family(e: Elements): Map<string, FormatSteps> {
  const yearE = [e.year];
  const monthE = [lit('-'), e.month];
  const dayE = [lit('-'), e.day];
  const weekyearE = [e.weekyear];
  const weekE = [lit('-W'), e.week];
  const dowE = [lit('-'), e.dayOfWeek];
  const doyE = [lit('-'), e.dayOfYear];
  const hourE = [e.hour];
  const minuteE = [lit(':'), e.minute];
  const secondE = [lit(':'), e.second];
  const fractionE = [lit('.'), fraction(F_FRACTION_OF_SECOND, 3, 9)];
  const millisE = [lit('.'), fraction(F_FRACTION_OF_SECOND, 3, 3)];

  const date = [...yearE, ...monthE, ...dayE];
  const time = [...hourE, ...minuteE, ...secondE, ...fractionE, ISO_OFFSET];
  const timeNoMillis = [...hourE, ...minuteE, ...secondE, ISO_OFFSET];
  const tTime = [T, ...time];
  const tTimeNoMillis = [T, ...timeNoMillis];
  const ordinalDate = [...yearE, ...doyE];
  const weekDate = [...weekyearE, ...weekE, ...dowE];

  const basicDate = [e.basicYear, fixed(F_MONTH, 2), fixed(F_DAY, 2)];
  const basicTime = [fixed(F_HOUR, 2), fixed(F_MINUTE, 2), fixed(F_SECOND, 2), lit('.'), fraction(F_FRACTION_OF_SECOND, 3, 9), BASIC_OFFSET];
  const basicTimeNoMillis = [fixed(F_HOUR, 2), fixed(F_MINUTE, 2), fixed(F_SECOND, 2), BASIC_OFFSET];
  const basicOrdinalDate = [e.basicYear, fixed(F_DAY_OF_YEAR, 3)];
  const basicWeekDate = [e.basicWeekyear, lit('W'), fixed(F_WEEK, 2), fixed(F_DAY_OF_WEEK, 1)];

  // ISODateTimeFormat.dateElementParser / timeElementParser / dateOptionalTimeParser
  const dateElementParser = alternatives(
    [...yearE, optional([...monthE, optional(dayE)])],
    [...weekyearE, ...weekE, optional(dowE)],
    [...yearE, ...doyE],
  );
  const decimalPoint = alternatives([lit('.')], [lit(',')]);
  const timeElementParser = [
    ...hourE,
    alternatives(
      [
        ...minuteE,
        alternatives(
          [...secondE, optional([decimalPoint, fraction(F_FRACTION_OF_SECOND, 1, 9)])],
          [decimalPoint, fraction(F_FRACTION_OF_MINUTE, 1, 9)],
          null,
        ),
      ],
      [decimalPoint, fraction(F_FRACTION_OF_HOUR, 1, 9)],
      null,
    ),
  ];
  const dateOptionalTimeParser = [dateElementParser, optional([T, optional(timeElementParser), optional([ISO_OFFSET])])];
  const dateTime = [...date, ...tTime];

  return new Map<string, FormatSteps>([
    ['basic_date', both(basicDate)],
    ['basic_date_time', both([...basicDate, T, ...basicTime])],
    ['basic_date_time_no_millis', both([...basicDate, T, ...basicTimeNoMillis])],
    ['basic_ordinal_date', both(basicOrdinalDate)],
    ['basic_ordinal_date_time', both([...basicOrdinalDate, T, ...basicTime])],
    ['basic_ordinal_date_time_no_millis', both([...basicOrdinalDate, T, ...basicTimeNoMillis])],
    ['basic_time', both(basicTime)],
    ['basic_time_no_millis', both(basicTimeNoMillis)],
    ['basic_t_time', both([T, ...basicTime])],
    ['basic_t_time_no_millis', both([T, ...basicTimeNoMillis])],
    ['basic_week_date', both(basicWeekDate)],
    ['basic_week_date_time', both([...basicWeekDate, T, ...basicTime])],
    ['basic_week_date_time_no_millis', both([...basicWeekDate, T, ...basicTimeNoMillis])],
    ['date', both(date)],
    ['date_hour', both([...date, T, ...hourE])],
    ['date_hour_minute', both([...date, T, ...hourE, ...minuteE])],
    ['date_hour_minute_second', both([...date, T, ...hourE, ...minuteE, ...secondE])],
    ['date_hour_minute_second_fraction', both([...date, T, ...hourE, ...minuteE, ...secondE, ...fractionE])],
    ['date_hour_minute_second_millis', both([...date, T, ...hourE, ...minuteE, ...secondE, ...millisE])],
    ['date_optional_time', { parser: dateOptionalTimeParser, printer: dateTime }],
    ['date_time', both(dateTime)],
    ['date_time_no_millis', both([...date, ...tTimeNoMillis])],
    ['hour', both(hourE)],
    ['hour_minute', both([...hourE, ...minuteE])],
    ['hour_minute_second', both([...hourE, ...minuteE, ...secondE])],
    ['hour_minute_second_fraction', both([...hourE, ...minuteE, ...secondE, ...fractionE])],
    ['hour_minute_second_millis', both([...hourE, ...minuteE, ...secondE, ...millisE])],
    ['ordinal_date', both(ordinalDate)],
    ['ordinal_date_time', both([...ordinalDate, ...tTime])],
    ['ordinal_date_time_no_millis', both([...ordinalDate, ...tTimeNoMillis])],
    ['time', both(time)],
    ['time_no_millis', both(timeNoMillis)],
    ['t_time', both(tTime)],
    ['t_time_no_millis', both(tTimeNoMillis)],
    ['week_date', both(weekDate)],
    ['week_date_time', both([...weekDate, ...tTime])],
    ['week_date_time_no_millis', both([...weekDate, ...tTimeNoMillis])],
    ['weekyear', both(weekyearE)],
    ['weekyear_week', both([...weekyearE, ...weekE])],
    ['weekyear_week_day', both(weekDate)],
    ['year', both(yearE)],
    ['year_month', both([...yearE, ...monthE])],
    ['year_month_day', both(date)],
  ]);
}

function snakeToCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

const NAMED: ReadonlyMap<string, FormatSteps> = (() => {
  const all = new Map<string, FormatSteps>();
  const add = (name: string, f: FormatSteps): void => {
    all.set(name, f);
    all.set(snakeToCamel(name), f);
  };
  for (const [name, f] of family(LENIENT)) add(name, f);
  // Elasticsearch names the lenient one `week_year` (FormatNames.WEEK_YEAR).
  add('week_year', all.get('weekyear') as FormatSteps);
  for (const [name, f] of family(STRICT)) add('strict_' + name, f);
  add('epoch_millis', both([epoch(true)]));
  add('epoch_second', both([epoch(false)]));
  return all;
})();

/** The steps of a named format, or undefined when `name` is not one (then it is a Joda pattern). */
export function namedFormat(name: string): FormatSteps | undefined {
  return NAMED.get(name);
}
