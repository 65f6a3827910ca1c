/**
 * `token_chars` of the ngram and edge_ngram tokenizers (Elasticsearch's
 * NGramTokenizerFactory.parseTokenChars): the classes letter, digit,
 * whitespace, punctuation and symbol, plus every Java general category by its
 * lowercase constant name (`uppercase_letter`, `math_symbol`, ...).
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import {
  CharClassSet,
  DIGIT_MASK,
  JavaCategory,
  LETTER_MASK,
  PUNCTUATION_MASK,
  SYMBOL_MASK,
  categoryBit,
} from './char-classes.ts';
import { getOwn } from '../../json/own-keys.ts';

const CATEGORY_NAMES: Readonly<Record<string, JavaCategory>> = {
  unassigned: JavaCategory.Unassigned,
  uppercase_letter: JavaCategory.UppercaseLetter,
  lowercase_letter: JavaCategory.LowercaseLetter,
  titlecase_letter: JavaCategory.TitlecaseLetter,
  modifier_letter: JavaCategory.ModifierLetter,
  other_letter: JavaCategory.OtherLetter,
  non_spacing_mark: JavaCategory.NonSpacingMark,
  enclosing_mark: JavaCategory.EnclosingMark,
  combining_spacing_mark: JavaCategory.CombiningSpacingMark,
  decimal_digit_number: JavaCategory.DecimalDigitNumber,
  letter_number: JavaCategory.LetterNumber,
  other_number: JavaCategory.OtherNumber,
  space_separator: JavaCategory.SpaceSeparator,
  line_separator: JavaCategory.LineSeparator,
  paragraph_separator: JavaCategory.ParagraphSeparator,
  control: JavaCategory.Control,
  format: JavaCategory.Format,
  private_use: JavaCategory.PrivateUse,
  surrogate: JavaCategory.Surrogate,
  dash_punctuation: JavaCategory.DashPunctuation,
  start_punctuation: JavaCategory.StartPunctuation,
  end_punctuation: JavaCategory.EndPunctuation,
  connector_punctuation: JavaCategory.ConnectorPunctuation,
  other_punctuation: JavaCategory.OtherPunctuation,
  math_symbol: JavaCategory.MathSymbol,
  currency_symbol: JavaCategory.CurrencySymbol,
  modifier_symbol: JavaCategory.ModifierSymbol,
  other_symbol: JavaCategory.OtherSymbol,
  initial_quote_punctuation: JavaCategory.InitialQuotePunctuation,
  final_quote_punctuation: JavaCategory.FinalQuotePunctuation,
};

/**
 * The accepted names in the order Elasticsearch lists them in its error
 * message (the iteration order of its MATCHERS HashMap).
 */
const MATCHER_NAMES_IN_ES_ORDER =
  'symbol, private_use, paragraph_separator, start_punctuation, unassigned, enclosing_mark, connector_punctuation, ' +
  'letter_number, other_number, math_symbol, lowercase_letter, space_separator, surrogate, initial_quote_punctuation, ' +
  'decimal_digit_number, digit, other_punctuation, dash_punctuation, currency_symbol, non_spacing_mark, format, ' +
  'modifier_letter, control, uppercase_letter, other_symbol, end_punctuation, modifier_symbol, other_letter, ' +
  'line_separator, titlecase_letter, letter, punctuation, combining_spacing_mark, final_quote_punctuation, whitespace';

const setCache = new Map<string, CharClassSet>();

/** The token character set for `token_chars`, or null (every character) when the list is empty. */
export function parseTokenChars(classes: readonly string[]): CharClassSet | null {
  if (classes.length === 0) return null;
  let mask = 0;
  let whitespace = false;
  for (const raw of classes) {
    const name = raw.toLowerCase().trim();
    switch (name) {
      case 'letter':
        mask |= LETTER_MASK;
        break;
      case 'digit':
        mask |= DIGIT_MASK;
        break;
      case 'punctuation':
        mask |= PUNCTUATION_MASK;
        break;
      case 'symbol':
        mask |= SYMBOL_MASK;
        break;
      case 'whitespace':
        whitespace = true;
        break;
      default: {
        const cat = getOwn(CATEGORY_NAMES, name);
        if (cat === undefined) throw illegalArgument(`Unknown token type: '${name}', must be one of [${MATCHER_NAMES_IN_ES_ORDER}]`);
        mask |= categoryBit(cat);
      }
    }
  }
  const key = `${mask}:${whitespace}`;
  let set = setCache.get(key);
  if (set === undefined) {
    set = new CharClassSet(mask, whitespace);
    setCache.set(key, set);
  }
  return set;
}
