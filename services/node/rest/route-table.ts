/**
 * Every REST endpoint of a node, in one table: method, path, handler. Paths
 * are written as Elasticsearch's docs write them. router.ts decides which
 * route a request takes (the most explicit match; a segment starting with
 * `_` is never an index, type or id), and answers 405 with `Allow` for a
 * known path with another method and 400 `no handler found` for the rest.
 */
import type { Node } from '../node.ts';
import type { Handler, Method, Route } from './router.ts';
import type { BodyKind } from './content-type.ts';
import { clusterHandlers } from './routes/cluster.ts';
import { clusterSettingsHandlers } from './routes/cluster-settings.ts';
import { indexHandlers } from './routes/indices.ts';
import { aliasHandlers } from './routes/aliases.ts';
import { documentHandlers } from './routes/documents.ts';
import { bulkHandlers } from './routes/bulk.ts';
import { searchHandlers } from './routes/search.ts';
import { msearchHandlers } from './routes/msearch.ts';
import { templateHandlers } from './routes/templates.ts';
import { scriptHandlers } from './routes/scripts.ts';
import { byQueryHandlers } from './routes/by-query.ts';
import { reindexHandlers } from './routes/reindex.ts';
import { taskHandlers } from './routes/tasks.ts';
import { statsHandlers } from './routes/stats.ts';
import { nodeHandlers } from './routes/nodes.ts';
import { catHandlers } from './routes/cat.ts';
import { explainHandlers } from './routes/explain.ts';
import { termVectorHandlers } from './routes/termvectors.ts';
import { fieldCapsHandlers } from './routes/field-caps.ts';
import { validateHandlers } from './routes/validate.ts';
import { settingsHandlers } from './routes/settings.ts';
import { maintenanceHandlers } from './routes/maintenance.ts';
import { fieldMappingHandlers } from './routes/field-mapping.ts';
import { clusterStateHandlers } from './routes/cluster-state.ts';
import { clusterStatsHandlers } from './routes/cluster-stats.ts';

export function routeTable(node: Node): Route[] {
  const cluster = clusterHandlers(node);
  const settings = clusterSettingsHandlers(node);
  const indices = indexHandlers(node);
  const aliases = aliasHandlers(node);
  const docs = documentHandlers(node);
  const bulk = bulkHandlers(node);
  const search = searchHandlers(node);
  const msearch = msearchHandlers(node);
  const templates = templateHandlers(node);
  const scripts = scriptHandlers(node);
  const byQuery = byQueryHandlers(node);
  const reindex = reindexHandlers(node);
  const tasks = taskHandlers(node);
  const stats = statsHandlers(node);
  const nodes = nodeHandlers(node);
  const cat = catHandlers(node);
  const explain = explainHandlers(node);
  const termVectors = termVectorHandlers(node);
  const fieldCaps = fieldCapsHandlers(node);
  const validate = validateHandlers(node);
  const indexSettings = settingsHandlers(node);
  const maintenance = maintenanceHandlers(node);
  const fieldMappings = fieldMappingHandlers(node);
  const clusterState = clusterStateHandlers(node);
  const clusterStats = clusterStatsHandlers(node);

  const routes: Route[] = [];
  const add = (methods: readonly Method[], paths: readonly string[], handler: Handler, body?: BodyKind): void => {
    for (const path of paths) for (const method of methods) routes.push({ method, path, handler, body });
  };

  // ---- node and cluster --------------------------------------------------------------
  add(['GET'], ['/'], cluster.info);
  add(['HEAD'], ['/'], cluster.ping);
  add(['GET'], ['/_cluster/health', '/_cluster/health/{index}'], cluster.health);
  add(['GET'], ['/_cluster/settings'], settings.get);
  add(['PUT'], ['/_cluster/settings'], settings.put);
  add(['GET'], ['/_cluster/state', '/_cluster/state/{metric}', '/_cluster/state/{metric}/{index}'], clusterState.state);
  add(['GET'], ['/_cluster/pending_tasks'], clusterState.pendingTasks);
  add(['GET', 'POST'], ['/_cluster/allocation/explain'], clusterState.allocationExplain);
  add(['GET'], ['/_cluster/stats', '/_cluster/stats/nodes/{node_id}'], clusterStats.stats);

  // ---- _cat (rest/cat/: one column table per page) -------------------------------------
  add(['GET'], ['/_cat'], cat.index);
  add(['GET'], ['/_cat/aliases', '/_cat/aliases/{name}'], cat.aliases);
  add(['GET'], ['/_cat/allocation', '/_cat/allocation/{node_id}'], cat.allocation);
  add(['GET'], ['/_cat/count', '/_cat/count/{index}'], cat.count);
  add(['GET'], ['/_cat/fielddata', '/_cat/fielddata/{fields}'], cat.fielddata);
  add(['GET'], ['/_cat/health'], cat.health);
  add(['GET'], ['/_cat/indices', '/_cat/indices/{index}'], cat.indices);
  add(['GET'], ['/_cat/master'], cat.master);
  add(['GET'], ['/_cat/nodeattrs'], cat.nodeattrs);
  add(['GET'], ['/_cat/nodes'], cat.nodes);
  add(['GET'], ['/_cat/pending_tasks'], cat.pendingTasks);
  add(['GET'], ['/_cat/plugins'], cat.plugins);
  add(['GET'], ['/_cat/recovery', '/_cat/recovery/{index}'], cat.recovery);
  add(['GET'], ['/_cat/repositories'], cat.repositories);
  add(['GET'], ['/_cat/segments', '/_cat/segments/{index}'], cat.segments);
  add(['GET'], ['/_cat/shards', '/_cat/shards/{index}'], cat.shards);
  add(['GET'], ['/_cat/snapshots/{repository}'], cat.snapshots);
  add(['GET'], ['/_cat/tasks'], cat.tasks);
  add(['GET'], ['/_cat/templates', '/_cat/templates/{name}'], cat.templates);
  add(['GET'], ['/_cat/thread_pool', '/_cat/thread_pool/{thread_pool_patterns}'], cat.threadPool);
  add(['GET'], ['/_nodes', '/_nodes/{node_id}', '/_nodes/{node_id}/{metric}'], nodes.info);
  add(
    ['GET'],
    [
      '/_nodes/stats',
      '/_nodes/stats/{metric}',
      '/_nodes/stats/{metric}/{index_metric}',
      '/_nodes/{node_id}/stats',
      '/_nodes/{node_id}/stats/{metric}',
      '/_nodes/{node_id}/stats/{metric}/{index_metric}',
    ],
    nodes.stats,
  );

  // ---- stats -------------------------------------------------------------------------
  add(['GET'], ['/_stats', '/_stats/{metric}', '/{index}/_stats', '/{index}/_stats/{metric}'], stats.indexStats);

  // ---- indices -----------------------------------------------------------------------
  add(['PUT'], ['/{index}'], indices.create);
  add(['DELETE'], ['/{index}'], indices.delete);
  add(['HEAD'], ['/{index}'], indices.exists);
  add(['GET'], ['/{index}'], indices.get);
  add(['GET'], ['/_settings', '/_settings/{name}', '/{index}/_settings', '/{index}/_settings/{name}'], indexSettings.get);
  add(['PUT'], ['/_settings', '/{index}/_settings'], indexSettings.put);
  add(['GET'], ['/_mapping', '/_mapping/{type}', '/{index}/_mapping', '/{index}/_mapping/{type}', '/{index}/{type}/_mapping'], indices.getMapping);
  add(
    ['GET'],
    ['/_mapping/field/{fields}', '/_mapping/{type}/field/{fields}', '/{index}/_mapping/field/{fields}', '/{index}/{type}/_mapping/field/{fields}', '/{index}/_mapping/{type}/field/{fields}'],
    fieldMappings.get,
  );
  add(
    ['PUT', 'POST'],
    ['/_mapping/{type}', '/_mappings/{type}', '/{index}/_mapping', '/{index}/_mapping/{type}', '/{index}/_mappings/{type}', '/{index}/{type}/_mapping', '/{index}/{type}/_mappings'],
    indices.putMapping,
  );
  add(['POST'], ['/{index}/_close'], indices.close);
  add(['POST'], ['/{index}/_open'], indices.open);
  add(['GET', 'POST'], ['/_refresh', '/{index}/_refresh'], indices.refresh);

  // ---- index maintenance -------------------------------------------------------------
  add(['GET', 'POST'], ['/_flush', '/{index}/_flush'], maintenance.flush);
  add(['GET', 'POST'], ['/_flush/synced', '/{index}/_flush/synced'], maintenance.syncedFlush);
  add(['POST'], ['/_forcemerge', '/{index}/_forcemerge'], maintenance.forceMerge);
  add(['POST'], ['/_cache/clear', '/{index}/_cache/clear'], maintenance.clearCache);
  add(['GET'], ['/_segments', '/{index}/_segments'], maintenance.segments);
  add(['GET'], ['/_recovery', '/{index}/_recovery'], maintenance.recovery);
  add(['POST'], ['/{alias}/_rollover', '/{alias}/_rollover/{new_index}'], maintenance.rollover);
  add(['PUT', 'POST'], ['/{index}/_shrink/{target}'], maintenance.shrink);
  add(['PUT', 'POST'], ['/{index}/_split/{target}'], maintenance.split);
  add(['GET', 'POST'], ['/_analyze', '/{index}/_analyze'], indices.analyze);

  // ---- index templates ---------------------------------------------------------------
  add(['PUT', 'POST'], ['/_template/{name}'], templates.put);
  add(['GET'], ['/_template', '/_template/{name}'], templates.get);
  add(['HEAD'], ['/_template/{name}'], templates.exists);
  add(['DELETE'], ['/_template/{name}'], templates.delete);

  // ---- aliases -----------------------------------------------------------------------
  add(['POST'], ['/_aliases'], aliases.update);
  add(['PUT', 'POST'], ['/_alias/{name}', '/_aliases/{name}', '/{index}/_alias/{name}', '/{index}/_aliases/{name}'], aliases.put);
  add(['DELETE'], ['/{index}/_alias/{name}', '/{index}/_aliases/{name}'], aliases.delete);
  add(['HEAD'], ['/_alias/{name}', '/{index}/_alias', '/{index}/_alias/{name}'], aliases.exists);
  add(['GET'], ['/_alias', '/_aliases', '/_alias/{name}', '/{index}/_alias', '/{index}/_aliases', '/{index}/_alias/{name}'], aliases.get);

  // ---- documents ---------------------------------------------------------------------
  add(['PUT', 'POST'], ['/{index}/{type}/{id}'], docs.index);
  add(['POST'], ['/{index}/{type}'], docs.indexAutoId);
  add(['PUT', 'POST'], ['/{index}/{type}/{id}/_create'], docs.create);
  add(['GET'], ['/{index}/{type}/{id}'], docs.get);
  add(['GET'], ['/{index}/{type}/{id}/_source'], docs.getSource);
  add(['DELETE'], ['/{index}/{type}/{id}'], docs.delete);
  add(['POST'], ['/{index}/{type}/{id}/_update'], docs.update);
  add(['PUT', 'POST'], ['/_bulk', '/{index}/_bulk', '/{index}/{type}/_bulk'], bulk.bulk, 'ndjson');
  add(['GET', 'POST'], ['/_mget', '/{index}/_mget', '/{index}/{type}/_mget'], bulk.mget);

  // ---- search ------------------------------------------------------------------------
  add(['GET', 'POST'], ['/_search', '/{index}/_search', '/{index}/{type}/_search'], search.search);
  add(['GET', 'POST'], ['/_count', '/{index}/_count', '/{index}/{type}/_count'], search.count);
  add(['GET', 'POST'], ['/_search/scroll', '/_search/scroll/{scroll_id}'], search.scroll);
  add(['DELETE'], ['/_search/scroll', '/_search/scroll/{scroll_id}'], search.clearScroll);
  add(['GET', 'POST'], ['/_msearch', '/{index}/_msearch', '/{index}/{type}/_msearch'], msearch.msearch, 'ndjson');
  add(['GET', 'POST'], ['/{index}/{type}/{id}/_explain'], explain.explain);
  add(['GET', 'POST'], ['/{index}/{type}/{id}/_termvectors', '/{index}/{type}/_termvectors'], termVectors.single);
  add(['GET', 'POST'], ['/_mtermvectors', '/{index}/_mtermvectors', '/{index}/{type}/_mtermvectors'], termVectors.multi);
  add(['GET', 'POST'], ['/_field_caps', '/{index}/_field_caps'], fieldCaps.fieldCaps);
  add(['GET', 'POST'], ['/_validate/query', '/{index}/_validate/query', '/{index}/{type}/_validate/query'], validate.validate);

  // ---- by query, reindex and tasks ---------------------------------------------------
  add(['POST'], ['/{index}/_update_by_query', '/{index}/{type}/_update_by_query'], byQuery.updateByQuery);
  add(['POST'], ['/{index}/_delete_by_query', '/{index}/{type}/_delete_by_query'], byQuery.deleteByQuery);
  add(['POST'], ['/_reindex'], reindex.reindex);
  add(['POST'], ['/_update_by_query/{task_id}/_rethrottle', '/_delete_by_query/{task_id}/_rethrottle', '/_reindex/{task_id}/_rethrottle'], byQuery.rethrottle);
  add(['GET'], ['/_tasks'], tasks.list);
  add(['GET'], ['/_tasks/{task_id}'], tasks.get);
  add(['POST'], ['/_tasks/_cancel', '/_tasks/{task_id}/_cancel'], tasks.cancel);

  // ---- scripts -----------------------------------------------------------------------
  add(['PUT', 'POST'], ['/_scripts/{id}', '/_scripts/{id}/{context}'], scripts.put);
  add(['GET'], ['/_scripts/{id}'], scripts.get);
  add(['DELETE'], ['/_scripts/{id}'], scripts.delete);

  return routes;
}
