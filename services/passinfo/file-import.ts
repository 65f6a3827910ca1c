/**
 * File import for users without Kafka: NDJSON (one record per line) or CSV
 * (a header line naming the fields, any order; RFC 4180 quoting within a
 * line). Records go through the same validation, writer and first-entry
 * decisions as the Kafka ingest; refused lines are written to a rejects file
 * (NDJSON: line number, reason, the line) and counted, never dropped
 * silently. Streamed: memory holds one batch.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EntryDesignation } from './entry-designation.ts';
import { saveDesignation } from './entry-designation.ts';
import { FirstEntryDetector } from './first-entry.ts';
import { ensureIndices, type IndexNames, type IndexOptions } from './index-setup.ts';
import { NUMERIC_FIELDS, validatePassRecord, type PassRecord } from './pass-record.ts';
import { PassWriter } from './pass-writer.ts';
import type { SearchClient } from './search-client.ts';
import { setOwn } from '../../shared/json/own-keys.ts';

export type FileFormat = 'ndjson' | 'csv';

export interface ImportOptions {
  readonly client: SearchClient;
  readonly names: IndexNames;
  readonly file: string;
  /** Default: from the extension (.csv is CSV, anything else NDJSON). */
  readonly format?: FileFormat;
  /** Where refused lines go. Default `<file>.rejected.ndjson`. */
  readonly rejectsFile?: string;
  readonly designation?: EntryDesignation;
  readonly index?: IndexOptions;
  readonly batchSize?: number;
  /** After every bulk: the summary so far and how many bytes of the file were read. */
  readonly progress?: (s: ImportSummary, bytesRead: number) => void;
}

export interface ImportSummary {
  lines: number;
  indexed: number;
  duplicates: number;
  rejected: number;
  first_entries: number;
  rejects_file: string | null;
}

/** Splits one CSV line: commas, double-quoted fields with "" for a quote. */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}

function csvRecord(header: readonly string[], line: string): Record<string, unknown> {
  const cells = splitCsvLine(line);
  if (cells.length !== header.length) throw new Error(`${cells.length} fields where the header names ${header.length}`);
  const obj: Record<string, unknown> = {};
  header.forEach((name, i) => {
    const cell = cells[i]!;
    // A header is data: a column named __proto__ is a field (and fails validation), never the object's prototype.
    setOwn(obj, name, NUMERIC_FIELDS.has(name) ? (cell.trim() === '' ? undefined : Number(cell)) : name === 'location' ? csvLocation(cell) : cell === '' ? null : cell);
  });
  return obj;
}

/** A `location` cell `lat,lon` (quoted, it holds a comma) as {lat, lon}; empty is none; anything else stays text for validation to refuse. */
function csvLocation(cell: string): unknown {
  if (cell.trim() === '') return null;
  const parts = cell.split(',');
  const [lat, lon] = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  return parts.length === 2 && Number.isFinite(lat) && Number.isFinite(lon) ? { lat, lon } : cell;
}

export async function importFile(options: ImportOptions): Promise<ImportSummary> {
  const format: FileFormat = options.format ?? (options.file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson');
  await ensureIndices(options.client, options.names, options.index);
  if (options.designation) await saveDesignation(options.client, options.names, options.designation);
  const writer = new PassWriter(options.client, options.names);
  const detector = options.designation ? new FirstEntryDetector(options.client, options.names, options.designation) : null;
  const rejectsPath = options.rejectsFile ?? `${options.file}.rejected.ndjson`;
  let rejects: WriteStream | null = null;
  const summary: ImportSummary = { lines: 0, indexed: 0, duplicates: 0, rejected: 0, first_entries: 0, rejects_file: null };
  const reject = (lineNo: number, reason: string, line: string): void => {
    rejects ??= createWriteStream(rejectsPath);
    summary.rejects_file = rejectsPath;
    summary.rejected++;
    rejects.write(`${JSON.stringify({ line: lineNo, reason, text: line })}\n`);
  };
  const batchSize = options.batchSize ?? 5000;
  let batch: { record: PassRecord; lineNo: number; line: string }[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    const res = await writer.write(current.map((b) => b.record));
    summary.indexed += res.indexed;
    summary.duplicates += res.duplicates;
    const refused = new Set(res.rejects.map((r) => r.record));
    for (const r of res.rejects) {
      const b = current.find((x) => x.record === r.record)!;
      reject(b.lineNo, r.reason, b.line);
    }
    if (detector !== null) {
      const firsts = await detector.decide(current.map((b) => b.record).filter((r) => !refused.has(r)));
      await detector.store(firsts);
      summary.first_entries += firsts.length;
    }
    options.progress?.(summary, input.bytesRead);
  };

  const input = createReadStream(options.file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  let header: string[] | null = null;
  let lineNo = 0;
  try {
    for await (const raw of lines) {
      lineNo++;
      const line = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (line.trim() === '') continue;
      if (format === 'csv' && header === null) {
        header = splitCsvLine(line).map((h) => h.trim());
        continue;
      }
      summary.lines++;
      let value: unknown;
      try {
        value = format === 'csv' ? csvRecord(header!, line) : JSON.parse(line);
      } catch (err) {
        reject(lineNo, `not a ${format === 'csv' ? 'CSV' : 'JSON'} record: ${err instanceof Error ? err.message : String(err)}`, line);
        continue;
      }
      const v = validatePassRecord(value);
      if (!v.ok) {
        reject(lineNo, v.reason, line);
        continue;
      }
      batch.push({ record: v.record, lineNo, line });
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  } finally {
    const open: WriteStream | null = rejects;
    if (open !== null) await new Promise<void>((resolve) => (open as WriteStream).end(resolve));
  }
  return summary;
}
