/**
 * The durable state of one shard copy (DESIGN.md 3): id → {version, seq_no,
 * deleted, routing, source} in classic-level, plus the applied-offset
 * checkpoint. Doc changes and the checkpoint are written in one atomic batch,
 * so after a crash the copy resumes exactly after the last applied record.
 */
import { ClassicLevel } from 'classic-level';

export interface DocState {
  readonly version: number;
  readonly seqNo: number;
  readonly deleted: boolean;
  readonly routing: string | null;
  /** Raw `_source` JSON bytes; null for a delete tombstone. */
  readonly source: Buffer | null;
}

const CHECKPOINT_KEY = '!applied';
const DOC_PREFIX = 'd:';

/** [f64 version][f64 seqNo][u8 flags][u16 routing length][routing utf8][source bytes] */
function encodeState(s: DocState): Buffer {
  const routing = s.routing === null ? null : Buffer.from(s.routing, 'utf8');
  const srcLen = s.source ? s.source.length : 0;
  const rLen = routing ? routing.length : 0;
  const buf = Buffer.allocUnsafe(19 + rLen + srcLen);
  buf.writeDoubleLE(s.version, 0);
  buf.writeDoubleLE(s.seqNo, 8);
  buf[16] = (s.deleted ? 1 : 0) | (routing ? 2 : 0);
  buf.writeUInt16LE(rLen, 17);
  if (routing) routing.copy(buf, 19);
  if (s.source) s.source.copy(buf, 19 + rLen);
  return buf;
}

function decodeState(buf: Buffer): DocState {
  const flags = buf[16];
  const rLen = buf.readUInt16LE(17);
  const deleted = (flags & 1) !== 0;
  return {
    version: buf.readDoubleLE(0),
    seqNo: buf.readDoubleLE(8),
    deleted,
    routing: flags & 2 ? buf.toString('utf8', 19, 19 + rLen) : null,
    source: deleted ? null : buf.subarray(19 + rLen),
  };
}

export interface DocChange {
  readonly id: string;
  readonly state: DocState;
}

export class DocStore {
  private constructor(private readonly db: ClassicLevel<string, Buffer>) {}

  static async open(path: string): Promise<DocStore> {
    const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    return new DocStore(db);
  }

  /** Offset of the next record to apply (0 for a new copy). */
  async appliedOffset(): Promise<number> {
    const v = await this.db.get(CHECKPOINT_KEY);
    return v === undefined ? 0 : v.readDoubleLE(0);
  }

  async get(id: string): Promise<DocState | undefined> {
    const v = await this.db.get(DOC_PREFIX + id);
    return v === undefined ? undefined : decodeState(v);
  }

  async getMany(ids: readonly string[]): Promise<(DocState | undefined)[]> {
    const values = await this.db.getMany(ids.map((id) => DOC_PREFIX + id));
    return values.map((v) => (v === undefined ? undefined : decodeState(v)));
  }

  /** Writes the changes and the new checkpoint atomically. */
  async commit(changes: readonly DocChange[], nextOffset: number): Promise<void> {
    const checkpoint = Buffer.allocUnsafe(8);
    checkpoint.writeDoubleLE(nextOffset, 0);
    const batch = this.db.batch();
    for (const c of changes) batch.put(DOC_PREFIX + c.id, encodeState(c.state));
    batch.put(CHECKPOINT_KEY, checkpoint);
    await batch.write();
  }

  /** Every stored document (tombstones included), in id order. */
  async *entries(): AsyncGenerator<[string, DocState]> {
    for await (const [key, value] of this.db.iterator({ gte: DOC_PREFIX, lt: 'd;' })) {
      yield [key.slice(DOC_PREFIX.length), decodeState(value)];
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
