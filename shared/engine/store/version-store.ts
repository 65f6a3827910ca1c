/**
 * The durable state of one shard copy besides its segment files (DESIGN.md 3):
 * id → {version, seq_no, deleted, routing} in classic-level, and the commit
 * point. The sources live once, in the segments' stored fields
 * (docs/decisions/003).
 *
 * Only commits write here, in one atomic batch: the version changes of every
 * op applied since the previous commit, the segment list that holds those
 * ops' documents, and the log offset they reach. This batch is the single
 * source of truth for "what is applied": after a crash the copy opens the
 * segments it names and replays the log from its offset, and because applying
 * is deterministic the replay reaches the same versions and outcomes again.
 */
import { ClassicLevel } from 'classic-level';
import type { SegmentsCommit } from '../segment/shard-index.ts';

/** What the version map knows of a document. */
export interface VersionEntry {
  readonly version: number;
  readonly seqNo: number;
  readonly deleted: boolean;
  readonly routing: string | null;
}

/** A commit point: the segments and, per partition of the copy's log, the offset of the next record to apply. */
export interface CopyCommit extends SegmentsCommit {
  /** The copy's own partition's offset (a copy that reads one partition). */
  readonly nextOffset: number;
  /** [partition, offset] for every partition the copy reads (absent in commits of copies that read one). */
  readonly nextOffsets?: readonly (readonly [number, number])[];
}

const COMMIT_KEY = '!commit';
/** The checkpoint key of the format before segment files (sources in the doc store): such a copy is rebuilt from the log. */
const LEGACY_CHECKPOINT_KEY = '!applied';
const DOC_PREFIX = 'd:';

/** [f64 version][f64 seqNo][u8 flags][u16 routing length][routing utf8] */
function encodeEntry(e: VersionEntry): Buffer {
  const routing = e.routing === null ? null : Buffer.from(e.routing, 'utf8');
  const rLen = routing ? routing.length : 0;
  const buf = Buffer.allocUnsafe(19 + rLen);
  buf.writeDoubleLE(e.version, 0);
  buf.writeDoubleLE(e.seqNo, 8);
  buf[16] = (e.deleted ? 1 : 0) | (routing ? 2 : 0);
  buf.writeUInt16LE(rLen, 17);
  if (routing) routing.copy(buf, 19);
  return buf;
}

function decodeEntry(buf: Buffer): VersionEntry {
  const flags = buf[16]!;
  const rLen = buf.readUInt16LE(17);
  return {
    version: buf.readDoubleLE(0),
    seqNo: buf.readDoubleLE(8),
    deleted: (flags & 1) !== 0,
    routing: flags & 2 ? buf.toString('utf8', 19, 19 + rLen) : null,
  };
}

export class VersionStore {
  private constructor(private readonly db: ClassicLevel<string, Buffer>) {}

  static async open(path: string): Promise<VersionStore> {
    const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    return new VersionStore(db);
  }

  /** The last commit, or null for a new copy. */
  async lastCommit(): Promise<CopyCommit | null> {
    const v = await this.db.get(COMMIT_KEY);
    return v === undefined ? null : (JSON.parse(v.toString('utf8')) as CopyCommit);
  }

  /** True when the store was written by the format that kept sources here (the copy must be rebuilt). */
  async isLegacy(): Promise<boolean> {
    return (await this.db.get(COMMIT_KEY)) === undefined && (await this.db.get(LEGACY_CHECKPOINT_KEY)) !== undefined;
  }

  async getMany(ids: readonly string[]): Promise<(VersionEntry | undefined)[]> {
    const values = await this.db.getMany(ids.map((id) => DOC_PREFIX + id));
    return values.map((v) => (v === undefined ? undefined : decodeEntry(v)));
  }

  /** Writes the version changes and the commit point atomically, synced to disk. */
  async commit(changes: ReadonlyMap<string, VersionEntry>, commit: CopyCommit): Promise<void> {
    const batch = this.db.batch();
    for (const [id, e] of changes) batch.put(DOC_PREFIX + id, encodeEntry(e));
    batch.put(COMMIT_KEY, Buffer.from(JSON.stringify(commit), 'utf8'));
    await batch.write({ sync: true });
  }

  /** Every entry (tombstones included), in id order. */
  async *entries(): AsyncGenerator<[string, VersionEntry]> {
    for await (const [key, value] of this.db.iterator({ gte: DOC_PREFIX, lt: 'd;' })) {
      yield [key.slice(DOC_PREFIX.length), decodeEntry(value)];
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
