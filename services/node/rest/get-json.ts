/**
 * GET responses written as bytes, for `_mget`'s many documents: a document
 * read with the plain options (no `stored_fields`, no `_source` filtering)
 * is its head as text and its stored source as it is, never decoded to a
 * string and built into an object to be serialised again. Anything else
 * goes through getResponse (documents.ts). The bytes are getResponse's
 * JSON exactly (test/integration/mget-bytes.test.ts compares the two).
 */
import type { GetResult } from '../coordinator/doc-reader.ts';
import type { Query } from './params.ts';
import { sourceFilterFromParams } from './source-params.ts';

/** Whether `q` asks for the plain GET response: every field of getResponse but `fields`, the whole source or none. */
export function plainGetOptions(q: Query): { plain: boolean; source: boolean } {
  if ((q.stored_fields ?? q.fields) !== undefined) return { plain: false, source: false };
  const sel = sourceFilterFromParams(q);
  return { plain: sel.includes.length === 0 && sel.excludes.length === 0, source: sel.enabled };
}

/** A run of JSON texts and raw bytes, joined into one buffer at the end. */
export class JsonBytes {
  private readonly parts: (string | Buffer)[] = [];
  private text = '';
  private bytes = 0;
  /** `{"_index":..,"_type":..,"_id":` by index and type. */
  private readonly heads = new Map<string, string>();

  /** JSON text. */
  append(json: string): void {
    this.text += json;
  }

  /** getResponse(r, q)'s JSON for options plainGetOptions(q) found plain; `source` is theirs. */
  plainGet(r: GetResult, source: boolean): void {
    const key = `${r.meta.name}\u0000${r.type}`;
    let head = this.heads.get(key);
    if (head === undefined) {
      head = `{"_index":${JSON.stringify(r.meta.name)},"_type":${JSON.stringify(r.type)},"_id":`;
      this.heads.set(key, head);
    }
    const doc = r.doc;
    if (doc === null) {
      this.text += `${head}${JSON.stringify(r.id)},"found":false}`;
      return;
    }
    this.text += `${head}${JSON.stringify(r.id)},"_version":${doc.version},"_seq_no":${doc.seqNo},"_primary_term":1,`;
    if (doc.routing !== null) this.text += `"_routing":${JSON.stringify(doc.routing)},`;
    const mappingKeeps = r.meta.mapping === null || r.meta.mapping.sourceEnabled;
    if (!source || doc.source === null || !mappingKeeps) {
      this.text += '"found":true}';
      return;
    }
    this.text += '"found":true,"_source":';
    this.flushText();
    this.parts.push(doc.source);
    this.bytes += doc.source.length;
    this.text += '}';
  }

  private flushText(): void {
    if (this.text === '') return;
    this.parts.push(this.text);
    this.bytes += Buffer.byteLength(this.text, 'utf8');
    this.text = '';
  }

  /** Everything added since the last take, as one buffer. */
  take(): Buffer {
    this.flushText();
    const out = Buffer.allocUnsafe(this.bytes);
    let at = 0;
    for (const p of this.parts) at += typeof p === 'string' ? out.write(p, at, 'utf8') : p.copy(out, at);
    this.parts.length = 0;
    this.bytes = 0;
    return out;
  }
}
