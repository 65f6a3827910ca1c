/**
 * `GET /_cat/segments[/{index}]` (RestSegmentsAction): every segment of
 * every copy searches see now, those still in memory (not yet written by a
 * commit) included, as Elasticsearch lists segments not yet committed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import type { WireSegment } from '../../shard-worker/protocol.ts';
import { ES_VERSION } from '../../version.ts';
import { params } from '../params.ts';
import { Bytes, col, sendCat, type Column } from './table.ts';
import { catIndices, hostOf } from './sources.ts';

interface Row {
  readonly index: string;
  readonly shard: number;
  readonly primary: boolean;
  readonly node: NodeInfo | undefined;
  readonly segment: WireSegment;
}

const COLUMNS: Column<Row>[] = [
  col('index', 'default:true;alias:i,idx;desc:index name', (r) => r.index),
  col('shard', 'default:true;alias:s,sh;desc:shard name', (r) => r.shard),
  col('prirep', 'alias:p,pr,primaryOrReplica;default:true;desc:primary or replica', (r) => (r.primary ? 'p' : 'r')),
  col('ip', 'default:true;desc:ip of node where it lives', (r) => (r.node ? hostOf(r.node.transportAddress) : null)),
  col('id', 'default:false;desc:unique id of node where it lives', (r) => r.node?.id ?? null),
  col('segment', 'default:true;alias:seg;desc:segment name', (r) => `_${r.segment.id.toString(36)}`),
  col('generation', 'default:true;alias:g,gen;text-align:right;desc:segment generation', (r) => r.segment.id),
  col('docs.count', 'default:true;alias:dc,docsCount;text-align:right;desc:number of docs in segment', (r) => r.segment.numDocs),
  col('docs.deleted', 'default:true;alias:dd,docsDeleted;text-align:right;desc:number of deleted docs in segment', (r) => r.segment.maxDoc - r.segment.numDocs),
  col('size', 'default:true;alias:si;text-align:right;desc:segment size in bytes', (r) => new Bytes(r.segment.sizeInBytes)),
  col('size.memory', 'default:true;alias:sm,sizeMemory;text-align:right;desc:segment memory in bytes', (r) => r.segment.memoryInBytes),
  col('committed', 'default:true;alias:ic,isCommitted;desc:is segment committed', (r) => r.segment.committed),
  col('searchable', 'default:true;alias:is,isSearchable;desc:is segment searched', () => true),
  col('version', 'default:true;alias:v,ver;desc:version', () => ES_VERSION.lucene_version),
  col('compound', 'default:true;alias:ico,isCompound;desc:is segment compound', () => false),
];

export function catSegments(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    // Closed indices are refused (index_closed_exception), as IndicesSegmentsRequest's options do.
    const metas = catIndices(node, params(req).index, { forbidClosed: true });
    const gathered = await node.nodeAdmin.segments(metas);
    const nodes = new Map(node.directory.nodes().map((n) => [n.id, n]));
    const rows: Row[] = [];
    const copies = gathered.results.flat().sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : a.shard - b.shard || Number(b.primary) - Number(a.primary)));
    for (const c of copies) for (const segment of c.segments) rows.push({ index: c.index, shard: c.shard, primary: c.primary, node: nodes.get(c.nodeId), segment });
    return sendCat(req, reply, COLUMNS, rows);
  };
}
