/**
 * Zstandard for kafkajs, which ships only gzip: the producer compresses each
 * record batch as the embedded log does (about 8:1 on pass records), and
 * the brokers store it as sent (the topics' `compression.type` stays
 * `producer`). Registered once, before the first producer or consumer runs.
 */
import kafkajs from 'kafkajs';
import { compress, decompress } from 'zstd-napi';

const { CompressionCodecs, CompressionTypes } = kafkajs;
const ZSTD_LEVEL = 1;

export const BATCH_COMPRESSION = CompressionTypes.ZSTD;

CompressionCodecs[CompressionTypes.ZSTD] = () => ({
  compress: async (encoder: { buffer: Buffer }) => compress(encoder.buffer, { compressionLevel: ZSTD_LEVEL }),
  decompress: async (buffer: Buffer) => decompress(buffer),
});
