/**
 * The bytes of a `_bulk` response's items. A successful index, create or
 * delete (almost every item of a load) is written straight into a buffer, in
 * writeResponse's field order: a string per item (and the generic serialiser
 * before it) allocated most of what a 10 MB bulk made the thread serving HTTP
 * collect (issue 11). Other items are the generic serialiser's JSON.
 */
import type { WriteItemResult } from '../../coordinator/write-coordinator.ts';
import type { JsonWriter } from '../../../../shared/json/json-writer.ts';

/** Writes the bulk items of one response; `{"index":{"_index":..,"_type":..,` is encoded once per action, index and type. */
export class BulkItemWriter {
  private readonly heads = new Map<string, Buffer>();
  /** The last head, and what it was for: the items of a bulk mostly share it. */
  private last: { action: string; index: string; type: string; head: Buffer } | null = null;

  /** A successful index, create or delete: `{"<action>":{...,"status":N}}`. */
  success(o: JsonWriter, action: string, r: WriteItemResult & { ok: true }, status: number): void {
    const last = this.last;
    let head: Buffer;
    if (last !== null && last.action === action && last.index === r.index && last.type === r.type) head = last.head;
    else {
      const key = `${action}\u0000${r.index}\u0000${r.type}`;
      head = this.heads.get(key) ?? Buffer.from(`{"${action}":{"_index":${JSON.stringify(r.index)},"_type":${JSON.stringify(r.type)},"_id":`, 'utf8');
      this.heads.set(key, head);
      this.last = { action, index: r.index, type: r.type, head };
    }
    o.raw(head);
    o.jsonString(r.id);
    o.ascii(',"_version":');
    o.number(r.version);
    o.ascii(',"result":"');
    o.ascii(r.result);
    o.ascii(r.forcedRefresh ? '","forced_refresh":true,"_shards":{"total":' : '","_shards":{"total":');
    o.number(r.shardsTotal);
    o.ascii(',"successful":');
    o.number(r.shardsSuccessful);
    o.ascii(',"failed":0},"_seq_no":');
    o.number(r.seqNo);
    o.ascii(',"_primary_term":1,"status":');
    o.number(status);
    o.ascii('}}');
  }
}
