/** `GET /_cat/count[/{index}]` (RestCountAction): the documents a `match_all` count finds. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { params } from '../params.ts';
import { col, sendCat } from './table.ts';
import { epochAndTime } from './sources.ts';

interface Row {
  readonly now: number;
  readonly count: number;
}

const COLUMNS = [
  col<Row>('epoch', 'alias:t,time;desc:seconds since 1970-01-01 00:00:00', (r) => epochAndTime(r.now).epoch),
  col<Row>('timestamp', 'alias:ts,hms,hhmmss;desc:time in HH:MM:SS', (r) => epochAndTime(r.now).timestamp),
  col<Row>('count', 'alias:dc,docs.count,docsCount;desc:the document count', (r) => r.count),
];

export function catCount(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const { body } = await node.search.search({
      indices: params(req).index,
      types: null,
      body: {},
      rawBody: null,
      url: {},
      scrollKeepAliveMs: 0,
      routing: null,
      preference: null,
      searchType: 'query_then_fetch',
      ignoreUnavailable: false,
      allowNoIndices: true,
      typedKeys: false,
      timeoutMs: null,
      countOnly: true,
    });
    return sendCat(req, reply, COLUMNS, [{ now: Date.now(), count: body.count as number }]);
  };
}
