/**
 * Elasticsearch's `html_strip` char filter (Lucene's HTMLStripCharFilter),
 * in its common behaviour: tags are removed, block-level tags become a line
 * break, comments and the contents of <script> and <style> disappear, and
 * character entities are decoded. Tags named in `escaped_tags` stay as they
 * are. Offsets of the remaining text map back to the HTML.
 */

import { applyReplacements, type Replacement } from './offset-correction.ts';
import type { CharFilter, CharFilterResult } from './token-stream.ts';
import { getOwn } from '../../json/own-keys.ts';

/** Elements Lucene's HTMLStripCharFilter treats as block-level (replaced by "\n"). */
const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head',
  'header', 'hgroup', 'hr', 'html', 'isindex', 'li', 'map', 'menu', 'nav', 'noframes', 'noscript', 'ol', 'option',
  'p', 'pre', 'section', 'select', 'table', 'tbody', 'td', 'textarea', 'tfoot', 'th', 'thead', 'title', 'tr', 'ul',
]);

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '\u00a9', reg: '\u00ae',
  trade: '\u2122', hellip: '\u2026', mdash: '\u2014', ndash: '\u2013', lsquo: '\u2018', rsquo: '\u2019',
  ldquo: '\u201c', rdquo: '\u201d', laquo: '\u00ab', raquo: '\u00bb', euro: '\u20ac', pound: '\u00a3',
  yen: '\u00a5', cent: '\u00a2', sect: '\u00a7', deg: '\u00b0', plusmn: '\u00b1', times: '\u00d7',
  divide: '\u00f7', middot: '\u00b7', bull: '\u2022', iexcl: '\u00a1', iquest: '\u00bf', szlig: '\u00df',
  Agrave: 'À', Aacute: 'Á', Acirc: 'Â', Atilde: 'Ã', Auml: 'Ä', Aring: 'Å', AElig: 'Æ', Ccedil: 'Ç',
  Egrave: 'È', Eacute: 'É', Ecirc: 'Ê', Euml: 'Ë', Igrave: 'Ì', Iacute: 'Í', Icirc: 'Î', Iuml: 'Ï',
  Ntilde: 'Ñ', Ograve: 'Ò', Oacute: 'Ó', Ocirc: 'Ô', Otilde: 'Õ', Ouml: 'Ö', Oslash: 'Ø', Ugrave: 'Ù',
  Uacute: 'Ú', Ucirc: 'Û', Uuml: 'Ü', Yacute: 'Ý', agrave: 'à', aacute: 'á', acirc: 'â', atilde: 'ã',
  auml: 'ä', aring: 'å', aelig: 'æ', ccedil: 'ç', egrave: 'è', eacute: 'é', ecirc: 'ê', euml: 'ë',
  igrave: 'ì', iacute: 'í', icirc: 'î', iuml: 'ï', ntilde: 'ñ', ograve: 'ò', oacute: 'ó', ocirc: 'ô',
  otilde: 'õ', ouml: 'ö', oslash: 'ø', ugrave: 'ù', uacute: 'ú', ucirc: 'û', uuml: 'ü', yacute: 'ý',
  yuml: 'ÿ',
};

const TAG = /<(\/?)([A-Za-z][A-Za-z0-9:_-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/y;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/y;

export class HtmlStripCharFilter implements CharFilter {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly escapedTags: ReadonlySet<string>;

  constructor(name: string, escapedTags: readonly string[]) {
    this.name = name;
    this.escapedTags = new Set(escapedTags.map((t) => t.toLowerCase()));
  }

  apply(text: string): CharFilterResult {
    const replacements: Replacement[] = [];
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x3c /* < */) {
        const end = this.markup(text, i, replacements);
        i = end > i ? end : i + 1;
      } else if (c === 0x26 /* & */) {
        ENTITY.lastIndex = i;
        const m = ENTITY.exec(text);
        const decoded = m === null ? null : decodeEntity(m);
        if (m !== null && decoded !== null) {
          replacements.push({ start: i, end: i + m[0].length, replacement: decoded });
          i += m[0].length;
        } else {
          i++;
        }
      } else {
        i++;
      }
    }
    return applyReplacements(text, replacements);
  }

  /** Handles markup at `i` (a `<`); returns the index after it, or `i` when it is not markup. */
  private markup(text: string, i: number, out: Replacement[]): number {
    if (text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      const end = close < 0 ? text.length : close + 3;
      out.push({ start: i, end, replacement: '' });
      return end;
    }
    if (text.startsWith('<!', i) || text.startsWith('<?', i)) {
      const close = text.indexOf('>', i + 2);
      if (close < 0) return i;
      out.push({ start: i, end: close + 1, replacement: '' });
      return close + 1;
    }
    TAG.lastIndex = i;
    const m = TAG.exec(text);
    if (m === null) return i;
    const name = m[2]!.toLowerCase();
    let end = i + m[0].length;
    if (this.escapedTags.has(name)) return end;
    const closing = m[1] === '/';
    if (!closing && (name === 'script' || name === 'style')) {
      const closeTag = new RegExp(`</${name}\\s*>`, 'ig');
      closeTag.lastIndex = end;
      const close = closeTag.exec(text);
      end = close === null ? text.length : close.index + close[0].length;
    }
    out.push({ start: i, end, replacement: BLOCK_ELEMENTS.has(name) ? '\n' : '' });
    return end;
  }
}

function decodeEntity(m: RegExpExecArray): string | null {
  if (m[1] !== undefined || m[2] !== undefined) {
    const cp = m[1] !== undefined ? parseInt(m[1], 10) : parseInt(m[2]!, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
    return String.fromCodePoint(cp);
  }
  return getOwn(NAMED_ENTITIES, m[3]!) ?? null;
}
