/**
 * Avro encoding of every record that goes into a commit log (DESIGN.md 2).
 *
 * Wire format of a log value: one magic byte (0), one schema-version byte,
 * then the Avro binary body. The version names the writer schema, so a reader
 * with a newer schema resolves old records (schema evolution) instead of
 * misreading them. Schemas live in schemas/*.avsc; nothing is written to a log
 * except through a codec made here.
 */
import { readFileSync } from 'node:fs';
import avro from 'avsc';

const MAGIC = 0;

/**
 * Avro longs as JS numbers over the whole 64-bit range. avsc's default long
 * refuses values beyond 2^53; Elasticsearch versions may go up to 9.2e18, so we
 * accept the precision loss above 2^53 rather than failing the write.
 */
const WideLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => Number(buf.readBigInt64LE()),
  toBuffer: (n: number) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(Math.trunc(n)));
    return buf;
  },
  fromJSON: Number,
  toJSON: Number,
  isValid: (n: unknown) => typeof n === 'number' && Number.isFinite(n),
  compare: (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0),
});

const schemaDir = new URL('../../schemas/', import.meta.url);

export function loadSchema(file: string): avro.Schema {
  return JSON.parse(readFileSync(new URL(file, schemaDir), 'utf8')) as avro.Schema;
}

export function avroType(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(schema, { registry: {}, logicalTypes: {}, typeHook: longHook });
}

function longHook(schema: avro.Schema): avro.Type | undefined {
  return schema === 'long' || (typeof schema === 'object' && (schema as { type?: unknown }).type === 'long')
    ? WideLong
    : undefined;
}

/**
 * A hand-written encoder and decoder of the current schema's Avro body, for a
 * record on a hot path; it must write exactly the bytes avsc writes (its tests
 * compare them).
 */
export interface CompiledBody<T> {
  /** A buffer with `prefix` bytes left for the caller, then the body of `value`. */
  encode(value: T, prefix: number): Buffer;
  /** The value whose body starts at `start` and runs to the end of `buf`. */
  decode(buf: Buffer, start: number): T;
}

/** Encodes and decodes one record kind; `history` holds older writer schemas by version. */
export class RecordCodec<T> {
  readonly version: number;
  private readonly type: avro.Type;
  private readonly resolvers = new Map<number, avro.Resolver>();

  constructor(
    schema: avro.Schema,
    version: number,
    history: ReadonlyMap<number, avro.Schema> = new Map(),
    private readonly compiled: CompiledBody<T> | null = null,
  ) {
    this.type = avroType(schema);
    this.version = version;
    for (const [v, writerSchema] of history) {
      this.resolvers.set(v, this.type.createResolver(avroType(writerSchema)));
    }
  }

  encode(value: T): Buffer {
    if (this.compiled !== null) {
      const framed = this.compiled.encode(value, 2);
      framed[0] = MAGIC;
      framed[1] = this.version;
      return framed;
    }
    const body = this.type.toBuffer(value);
    const out = Buffer.allocUnsafe(body.length + 2);
    out[0] = MAGIC;
    out[1] = this.version;
    body.copy(out, 2);
    return out;
  }

  decode(buf: Buffer): T {
    if (buf.length < 2 || buf[0] !== MAGIC) throw new Error(`not a framed Avro record (first byte ${buf[0]})`);
    const v = buf[1];
    if (v === this.version && this.compiled !== null) return this.compiled.decode(buf, 2);
    const body = buf.subarray(2);
    if (v === this.version) return this.type.fromBuffer(body) as T;
    const resolver = this.resolvers.get(v);
    if (!resolver) throw new Error(`unknown writer schema version ${v} (this reader knows ${this.version})`);
    return this.type.fromBuffer(body, resolver) as T;
  }
}
