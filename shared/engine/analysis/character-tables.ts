/**
 * Builds the analyzers' per-code-unit tables (Unicode categories, word-break
 * classes, Java letters) now. Each is built on first use otherwise, one regex
 * pass per property over the whole BMP: about 90 ms that the first `_analyze`
 * or text query after a start spent on the thread serving HTTP, while every
 * other request waited. A node builds them while it starts, before it listens.
 */
import { bmpCategoryTable, javaLetters } from './char-classes.ts';
import { wordBreakTable } from './word-break.ts';

export function buildCharacterTables(): void {
  bmpCategoryTable();
  wordBreakTable();
  javaLetters();
}
