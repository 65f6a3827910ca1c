/**
 * Avro codec of the pass-record topic: schemas/pass-record.avsc, framed as
 * every log record of the project is (magic byte, schema version, Avro body;
 * shared/records/avro-codec.ts), so a reader with a newer schema can resolve
 * records written with this one.
 */
import { RecordCodec, loadSchema } from '../../shared/records/avro-codec.ts';
import type { PassRecord } from './pass-record.ts';

export const PASS_RECORD_SCHEMA_VERSION = 1;

export const passRecordCodec = new RecordCodec<PassRecord>(loadSchema('pass-record.avsc'), PASS_RECORD_SCHEMA_VERSION);
