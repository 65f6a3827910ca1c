/**
 * The answer to a realtime get of many ids (`_mget`), from a shard worker to
 * the main thread: versions, sequence numbers and every source in a few
 * buffers that move without a copy (transferred). An object and an
 * ArrayBuffer per document cost the main thread more to receive than the
 * documents' bytes: 100,000 ids took 800 replies of 125 each.
 */
import type { WireDocState } from './protocol.ts';

/** What a get answers for its ids, in their order. */
export interface PackedDocStates {
  /** Per id: 0 not found, 1 deleted, 2 live, 3 live without a source. */
  readonly kinds: Uint8Array;
  readonly versions: Float64Array;
  readonly seqNos: Float64Array;
  /** Per id its routing, or null when no document has one. */
  readonly routings: (string | null)[] | null;
  /** The live documents' sources back to back; `ends[i]` is where id i's ends (its start is the previous id's end). */
  readonly sources: Uint8Array;
  readonly ends: Uint32Array;
}

const NOT_FOUND = 0;
const DELETED = 1;
const LIVE = 2;
const LIVE_NO_SOURCE = 3;

/** Collects a get's documents as they are read (each source copied once, into one growing buffer). */
export class DocStatesPacker {
  private readonly kinds: Uint8Array;
  private readonly versions: Float64Array;
  private readonly seqNos: Float64Array;
  private routings: (string | null)[] | null = null;
  private readonly ends: Uint32Array;
  private sources = new Uint8Array(1 << 16);
  private used = 0;
  private count = 0;

  constructor(private readonly size: number) {
    this.kinds = new Uint8Array(size);
    this.versions = new Float64Array(size);
    this.seqNos = new Float64Array(size);
    this.ends = new Uint32Array(size);
  }

  /** The next id's document; `source` is copied now (it may be a view the reader reuses). */
  add(state: { version: number; seqNo: number; deleted: boolean; routing: string | null } | null, source: Uint8Array | null): void {
    const i = this.count++;
    if (state !== null) {
      this.kinds[i] = state.deleted ? DELETED : source === null ? LIVE_NO_SOURCE : LIVE;
      this.versions[i] = state.version;
      this.seqNos[i] = state.seqNo;
      if (state.routing !== null) (this.routings ??= new Array<string | null>(this.size).fill(null))[i] = state.routing;
      if (!state.deleted && source !== null) {
        if (this.used + source.length > this.sources.length) {
          const grown = new Uint8Array(Math.max(this.sources.length * 2, this.used + source.length));
          grown.set(this.sources.subarray(0, this.used));
          this.sources = grown;
        }
        this.sources.set(source, this.used);
        this.used += source.length;
      }
    }
    this.ends[i] = this.used;
  }

  /** The batch and the buffers to transfer with it. */
  finish(): { packed: PackedDocStates; transfer: ArrayBuffer[] } {
    const sources = this.sources.slice(0, this.used);
    const packed = { kinds: this.kinds, versions: this.versions, seqNos: this.seqNos, routings: this.routings, sources, ends: this.ends };
    return { packed, transfer: [this.kinds.buffer, this.versions.buffer, this.seqNos.buffer, sources.buffer, this.ends.buffer] as ArrayBuffer[] };
  }
}

/** The documents of a packed get, each source a view of the one buffer. */
export function unpackDocStates(p: PackedDocStates): (WireDocState | null)[] {
  const out = new Array<WireDocState | null>(p.kinds.length);
  let start = 0;
  for (let i = 0; i < out.length; i++) {
    const end = p.ends[i]!;
    const kind = p.kinds[i]!;
    if (kind === NOT_FOUND) out[i] = null;
    else {
      const source = kind === LIVE ? p.sources.subarray(start, end) : null;
      out[i] = { version: p.versions[i]!, seqNo: p.seqNos[i]!, deleted: kind === DELETED, routing: p.routings?.[i] ?? null, source };
    }
    start = end;
  }
  return out;
}
