/**
 * The console's shard grid measures each copy's lag against the end of its
 * log (the partition's high watermark: the offset the next record appended
 * will get), not against the most advanced copy, which may itself be behind:
 *
 * - `GET /_console/api/log_ends`: per open index, per shard, the end of the
 *   log it reads, summed over its partitions as a copy's applied offset is
 *   (one partition, but for a rebuilt index with another shard count).
 *
 * Not an Elasticsearch API; it goes through the route table like one, so
 * authentication guards it too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { partitionsOf } from '../../cluster/index-metadata.ts';
import { sendJson } from '../reply.ts';

export interface IndexLogEnds {
  readonly index: string;
  /** By shard number: the sum of the high watermarks of the partitions its copies read. */
  readonly shards: number[];
}

export function consoleLogEndsHandler(node: NodeContext) {
  return async (_req: FastifyRequest, reply: FastifyReply) => {
    const metas = node.cluster.indices().filter((m) => !m.closed);
    const found = await Promise.all(
      metas.map(async (meta): Promise<IndexLogEnds | null> => {
        const topic = node.indices.topicOf(meta);
        const ends = new Map<number, Promise<number>>();
        const end = (p: number) => {
          let e = ends.get(p);
          if (e === undefined) ends.set(p, (e = node.log.highWatermark(topic, p)));
          return e;
        };
        try {
          const shards = await Promise.all(
            Array.from({ length: meta.settings.numberOfShards }, async (_, s) => {
              const each = await Promise.all(partitionsOf(meta, s).map(end));
              return each.reduce((a, b) => a + b, 0);
            }),
          );
          return { index: meta.name, shards };
        } catch {
          // A log not there yet (an index being created) or out of reach: its lag shows as unknown.
          return null;
        }
      }),
    );
    const indices = found.filter((i) => i !== null);
    indices.sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0));
    return sendJson(reply, 200, { indices });
  };
}
