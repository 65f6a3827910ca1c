/**
 * Every REST endpoint of a node, in one table: method, path, handler. Paths
 * are written as Elasticsearch's docs write them. router.ts decides which
 * route a request takes (the most explicit match; a segment starting with
 * `_` is never an index, type or id), and answers 405 with `Allow` for a
 * known path with another method and 400 `no handler found` for the rest.
 */
import type { NodeContext } from './node-context.ts';
import type { Handler, Method, Route } from './router.ts';
import type { BodyKind } from './content-type.ts';
import {
  anyIndexAction as anyIndex,
  clusterAction as clusterA,
  indexAction as indexA,
  itemsAction as items,
  selfAction as self,
  type RouteAuth,
} from '../security/route-auth.ts';
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
import { rebuildHandlers } from './routes/rebuild.ts';
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
import { securityHandlers } from './routes/security.ts';
import { apiKeyHandlers } from './routes/api-keys.ts';
import { consoleTraceHandlers } from './routes/console-traces.ts';
import { consoleLogEndsHandler } from './routes/console-log-ends.ts';
import { consoleSlowLogHandler } from './routes/console-slow-log.ts';

export function routeTable(node: NodeContext): Route[] {
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
  const rebuild = rebuildHandlers(node);
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
  const security = securityHandlers(node);

  const routes: Route[] = [];
  /** Every route names what it needs of a user when security is on (security/route-auth.ts): Elasticsearch's action. */
  const add = (methods: readonly Method[], paths: readonly string[], handler: Handler, auth: RouteAuth, body?: BodyKind): void => {
    for (const path of paths) for (const method of methods) routes.push({ method, path, handler, auth, body });
  };

  // ---- node and cluster --------------------------------------------------------------
  add(['GET'], ['/'], cluster.info, clusterA('cluster:monitor/main'));
  add(['HEAD'], ['/'], cluster.ping, clusterA('cluster:monitor/main'));
  add(['GET'], ['/_cluster/health', '/_cluster/health/{index}'], cluster.health, clusterA('cluster:monitor/health'));
  add(['GET'], ['/_cluster/settings'], settings.get, clusterA('cluster:monitor/state'));
  add(['PUT'], ['/_cluster/settings'], settings.put, clusterA('cluster:admin/settings/update'));
  add(['GET'], ['/_cluster/state', '/_cluster/state/{metric}', '/_cluster/state/{metric}/{index}'], clusterState.state, clusterA('cluster:monitor/state'));
  add(['GET'], ['/_cluster/pending_tasks'], clusterState.pendingTasks, clusterA('cluster:monitor/task'));
  add(['GET', 'POST'], ['/_cluster/allocation/explain'], clusterState.allocationExplain, clusterA('cluster:monitor/allocation/explain'));
  add(['GET'], ['/_cluster/stats', '/_cluster/stats/nodes/{node_id}'], clusterStats.stats, clusterA('cluster:monitor/stats'));

  // ---- _cat (rest/cat/: one column table per page) -------------------------------------
  add(['GET'], ['/_cat'], cat.index, clusterA('cluster:monitor/main'));
  add(['GET'], ['/_cat/aliases', '/_cat/aliases/{name}'], cat.aliases, indexA('indices:admin/aliases/get'));
  add(['GET'], ['/_cat/allocation', '/_cat/allocation/{node_id}'], cat.allocation, clusterA('cluster:monitor/state'));
  add(['GET'], ['/_cat/count', '/_cat/count/{index}'], cat.count, indexA('indices:data/read/search'));
  add(['GET'], ['/_cat/fielddata', '/_cat/fielddata/{fields}'], cat.fielddata, clusterA('cluster:monitor/nodes/stats'));
  add(['GET'], ['/_cat/health'], cat.health, clusterA('cluster:monitor/health'));
  add(['GET'], ['/_cat/indices', '/_cat/indices/{index}'], cat.indices, indexA('indices:monitor/stats'));
  add(['GET'], ['/_cat/master'], cat.master, clusterA('cluster:monitor/state'));
  add(['GET'], ['/_cat/nodeattrs'], cat.nodeattrs, clusterA('cluster:monitor/nodes/info'));
  add(['GET'], ['/_cat/nodes'], cat.nodes, clusterA('cluster:monitor/nodes/info'));
  add(['GET'], ['/_cat/pending_tasks'], cat.pendingTasks, clusterA('cluster:monitor/task'));
  add(['GET'], ['/_cat/plugins'], cat.plugins, clusterA('cluster:monitor/nodes/info'));
  add(['GET'], ['/_cat/recovery', '/_cat/recovery/{index}'], cat.recovery, indexA('indices:monitor/recovery'));
  add(['GET'], ['/_cat/repositories'], cat.repositories, clusterA('cluster:admin/repository/get'));
  add(['GET'], ['/_cat/segments', '/_cat/segments/{index}'], cat.segments, indexA('indices:monitor/segments'));
  add(['GET'], ['/_cat/shards', '/_cat/shards/{index}'], cat.shards, indexA('indices:monitor/stats'));
  add(['GET'], ['/_cat/snapshots/{repository}'], cat.snapshots, clusterA('cluster:admin/snapshot/get'));
  add(['GET'], ['/_cat/tasks'], cat.tasks, clusterA('cluster:monitor/tasks/lists'));
  add(['GET'], ['/_cat/templates', '/_cat/templates/{name}'], cat.templates, clusterA('indices:admin/template/get'));
  add(['GET'], ['/_cat/thread_pool', '/_cat/thread_pool/{thread_pool_patterns}'], cat.threadPool, clusterA('cluster:monitor/nodes/stats'));
  add(['GET'], ['/_nodes', '/_nodes/{node_id}', '/_nodes/{node_id}/{metric}'], nodes.info, clusterA('cluster:monitor/nodes/info'));
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
    clusterA('cluster:monitor/nodes/stats'),
  );

  // ---- stats -------------------------------------------------------------------------
  add(['GET'], ['/_stats', '/_stats/{metric}', '/{index}/_stats', '/{index}/_stats/{metric}'], stats.indexStats, indexA('indices:monitor/stats'));

  // ---- indices -----------------------------------------------------------------------
  add(['PUT'], ['/{index}'], indices.create, indexA('indices:admin/create'));
  add(['DELETE'], ['/{index}'], indices.delete, indexA('indices:admin/delete'));
  add(['HEAD'], ['/{index}'], indices.exists, indexA('indices:admin/exists'));
  add(['GET'], ['/{index}'], indices.get, indexA('indices:admin/get'));
  add(['GET'], ['/_settings', '/_settings/{name}', '/{index}/_settings', '/{index}/_settings/{name}'], indexSettings.get, indexA('indices:monitor/settings/get'));
  add(['PUT'], ['/_settings', '/{index}/_settings'], indexSettings.put, indexA('indices:admin/settings/update'));
  add(['GET'], ['/_mapping', '/_mapping/{type}', '/{index}/_mapping', '/{index}/_mapping/{type}', '/{index}/{type}/_mapping'], indices.getMapping, indexA('indices:admin/mappings/get'));
  add(
    ['GET'],
    ['/_mapping/field/{fields}', '/_mapping/{type}/field/{fields}', '/{index}/_mapping/field/{fields}', '/{index}/{type}/_mapping/field/{fields}', '/{index}/_mapping/{type}/field/{fields}'],
    fieldMappings.get,
    indexA('indices:admin/mappings/fields/get'),
  );
  add(
    ['PUT', 'POST'],
    ['/_mapping/{type}', '/_mappings/{type}', '/{index}/_mapping', '/{index}/_mapping/{type}', '/{index}/_mappings/{type}', '/{index}/{type}/_mapping', '/{index}/{type}/_mappings'],
    indices.putMapping, indexA('indices:admin/mapping/put'),
  );
  add(['POST'], ['/{index}/_close'], indices.close, indexA('indices:admin/close'));
  add(['POST'], ['/{index}/_open'], indices.open, indexA('indices:admin/open'));
  add(['GET', 'POST'], ['/_refresh', '/{index}/_refresh'], indices.refresh, indexA('indices:admin/refresh'));

  // ---- index maintenance -------------------------------------------------------------
  add(['GET', 'POST'], ['/_flush', '/{index}/_flush'], maintenance.flush, indexA('indices:admin/flush'));
  add(['GET', 'POST'], ['/_flush/synced', '/{index}/_flush/synced'], maintenance.syncedFlush, indexA('indices:admin/synced_flush'));
  add(['POST'], ['/_forcemerge', '/{index}/_forcemerge'], maintenance.forceMerge, indexA('indices:admin/forcemerge'));
  add(['POST'], ['/_cache/clear', '/{index}/_cache/clear'], maintenance.clearCache, indexA('indices:admin/cache/clear'));
  add(['GET'], ['/_segments', '/{index}/_segments'], maintenance.segments, indexA('indices:monitor/segments'));
  add(['GET'], ['/_recovery', '/{index}/_recovery'], maintenance.recovery, indexA('indices:monitor/recovery'));
  add(['POST'], ['/{alias}/_rollover', '/{alias}/_rollover/{new_index}'], maintenance.rollover, indexA('indices:admin/rollover', 'alias'));
  add(['PUT', 'POST'], ['/{index}/_shrink/{target}'], maintenance.shrink, indexA('indices:admin/shrink'));
  add(['PUT', 'POST'], ['/{index}/_split/{target}'], maintenance.split, indexA('indices:admin/resize'));
  add(['GET', 'POST'], ['/_analyze'], indices.analyze, anyIndex('indices:admin/analyze'));
  add(['GET', 'POST'], ['/{index}/_analyze'], indices.analyze, indexA('indices:admin/analyze'));

  // ---- index templates ---------------------------------------------------------------
  add(['PUT', 'POST'], ['/_template/{name}'], templates.put, clusterA('indices:admin/template/put'));
  add(['GET'], ['/_template', '/_template/{name}'], templates.get, clusterA('indices:admin/template/get'));
  add(['HEAD'], ['/_template/{name}'], templates.exists, clusterA('indices:admin/template/get'));
  add(['DELETE'], ['/_template/{name}'], templates.delete, clusterA('indices:admin/template/delete'));

  // ---- aliases -----------------------------------------------------------------------
  add(['POST'], ['/_aliases'], aliases.update, items('indices:admin/aliases'));
  add(['PUT', 'POST'], ['/_alias/{name}', '/_aliases/{name}', '/{index}/_alias/{name}', '/{index}/_aliases/{name}'], aliases.put, indexA('indices:admin/aliases'));
  add(['DELETE'], ['/{index}/_alias/{name}', '/{index}/_aliases/{name}'], aliases.delete, indexA('indices:admin/aliases'));
  add(['HEAD'], ['/_alias/{name}', '/{index}/_alias', '/{index}/_alias/{name}'], aliases.exists, indexA('indices:admin/aliases/get'));
  add(['GET'], ['/_alias', '/_aliases', '/_alias/{name}', '/{index}/_alias', '/{index}/_aliases', '/{index}/_alias/{name}'], aliases.get, indexA('indices:admin/aliases/get'));

  // ---- documents ---------------------------------------------------------------------
  add(['PUT', 'POST'], ['/{index}/{type}/{id}'], docs.index, indexA('indices:data/write/index'));
  add(['POST'], ['/{index}/{type}'], docs.indexAutoId, indexA('indices:data/write/index'));
  add(['PUT', 'POST'], ['/{index}/{type}/{id}/_create'], docs.create, indexA('indices:data/write/index'));
  add(['GET'], ['/{index}/{type}/{id}'], docs.get, indexA('indices:data/read/get'));
  add(['GET'], ['/{index}/{type}/{id}/_source'], docs.getSource, indexA('indices:data/read/get'));
  add(['DELETE'], ['/{index}/{type}/{id}'], docs.delete, indexA('indices:data/write/delete'));
  add(['POST'], ['/{index}/{type}/{id}/_update'], docs.update, indexA('indices:data/write/update'));
  add(['PUT', 'POST'], ['/_bulk', '/{index}/_bulk', '/{index}/{type}/_bulk'], bulk.bulk, items('indices:data/write/bulk'), 'ndjson');
  add(['GET', 'POST'], ['/_mget', '/{index}/_mget', '/{index}/{type}/_mget'], bulk.mget, items('indices:data/read/mget'));

  // ---- search ------------------------------------------------------------------------
  add(['GET', 'POST'], ['/_search', '/{index}/_search', '/{index}/{type}/_search'], search.search, indexA('indices:data/read/search'));
  add(['GET', 'POST'], ['/_count', '/{index}/_count', '/{index}/{type}/_count'], search.count, indexA('indices:data/read/search'));
  add(['GET', 'POST'], ['/_search/scroll', '/_search/scroll/{scroll_id}'], search.scroll, anyIndex('indices:data/read/scroll'));
  add(['DELETE'], ['/_search/scroll', '/_search/scroll/{scroll_id}'], search.clearScroll, anyIndex('indices:data/read/scroll/clear'));
  add(['GET', 'POST'], ['/_msearch', '/{index}/_msearch', '/{index}/{type}/_msearch'], msearch.msearch, items('indices:data/read/msearch'), 'ndjson');
  add(['GET', 'POST'], ['/{index}/{type}/{id}/_explain'], explain.explain, indexA('indices:data/read/explain'));
  add(['GET', 'POST'], ['/{index}/{type}/{id}/_termvectors', '/{index}/{type}/_termvectors'], termVectors.single, indexA('indices:data/read/tv'));
  add(['GET', 'POST'], ['/_mtermvectors', '/{index}/_mtermvectors', '/{index}/{type}/_mtermvectors'], termVectors.multi, items('indices:data/read/mtv'));
  add(['GET', 'POST'], ['/_field_caps', '/{index}/_field_caps'], fieldCaps.fieldCaps, indexA('indices:data/read/field_caps'));
  add(['GET', 'POST'], ['/_validate/query', '/{index}/_validate/query', '/{index}/{type}/_validate/query'], validate.validate, indexA('indices:admin/validate/query'));

  // ---- by query, reindex and tasks ---------------------------------------------------
  add(['POST'], ['/{index}/_update_by_query', '/{index}/{type}/_update_by_query'], byQuery.updateByQuery, indexA('indices:data/write/update/byquery'));
  add(['POST'], ['/{index}/_delete_by_query', '/{index}/{type}/_delete_by_query'], byQuery.deleteByQuery, indexA('indices:data/write/delete/byquery'));
  add(['POST'], ['/_reindex'], reindex.reindex, items('indices:data/write/reindex'));
  // A rebuild creates an index, reads another and moves an alias: a cluster privilege (manage), as index templates.
  add(['POST'], ['/{index}/_rebuild'], rebuild.rebuild, clusterA('cluster:admin/logsearch/rebuild'));
  add(['POST'], ['/_update_by_query/{task_id}/_rethrottle', '/_delete_by_query/{task_id}/_rethrottle', '/_reindex/{task_id}/_rethrottle'], byQuery.rethrottle, clusterA('cluster:admin/reindex/rethrottle'));
  add(['GET'], ['/_tasks'], tasks.list, clusterA('cluster:monitor/tasks/lists'));
  add(['GET'], ['/_tasks/{task_id}'], tasks.get, clusterA('cluster:monitor/task/get'));
  add(['POST'], ['/_tasks/_cancel', '/_tasks/{task_id}/_cancel'], tasks.cancel, clusterA('cluster:admin/tasks/cancel'));

  // ---- scripts -----------------------------------------------------------------------
  add(['PUT', 'POST'], ['/_scripts/{id}', '/_scripts/{id}/{context}'], scripts.put, clusterA('cluster:admin/script/put'));
  add(['GET'], ['/_scripts/{id}'], scripts.get, clusterA('cluster:admin/script/get'));
  add(['DELETE'], ['/_scripts/{id}'], scripts.delete, clusterA('cluster:admin/script/delete'));

  // ---- security (docs/security.md): 6.8's /_xpack/security paths and 7.x's /_security ----
  const sec = (rest: string) => [`/_xpack/security${rest}`, `/_security${rest}`];
  const SEC = 'cluster:admin/xpack/security';
  add(['GET'], sec('/_authenticate'), security.authenticate, self(`${SEC}/user/authenticate`));
  add(['GET'], [...sec('/user'), ...sec('/user/{username}')], security.getUser, clusterA(`${SEC}/user/get`));
  add(['GET', 'POST'], [...sec('/user/_has_privileges'), ...sec('/user/{username}/_has_privileges')], security.hasPrivileges, self(`${SEC}/user/has_privileges`));
  add(['PUT', 'POST'], sec('/user/{username}'), security.putUser, clusterA(`${SEC}/user/put`));
  add(['DELETE'], sec('/user/{username}'), security.deleteUser, clusterA(`${SEC}/user/delete`));
  add(['PUT', 'POST'], [...sec('/user/_password'), ...sec('/user/{username}/_password')], security.changePassword, self(`${SEC}/user/change_password`));
  add(['PUT', 'POST'], sec('/user/{username}/_enable'), security.enable, clusterA(`${SEC}/user/set_enabled`));
  add(['PUT', 'POST'], sec('/user/{username}/_disable'), security.disable, clusterA(`${SEC}/user/set_enabled`));
  add(['GET'], [...sec('/role'), ...sec('/role/{name}')], security.getRole, clusterA(`${SEC}/role/get`));
  add(['PUT', 'POST'], sec('/role/{name}'), security.putRole, clusterA(`${SEC}/role/put`));
  add(['DELETE'], sec('/role/{name}'), security.deleteRole, clusterA(`${SEC}/role/delete`));
  const apiKeys = apiKeyHandlers(node);
  add(['PUT', 'POST'], sec('/api_key'), apiKeys.create, clusterA(`${SEC}/api_key/create`));
  add(['GET'], sec('/api_key'), apiKeys.get, clusterA(`${SEC}/api_key/get`));
  add(['DELETE'], sec('/api_key'), apiKeys.invalidate, clusterA(`${SEC}/api_key/invalidate`));

  // ---- the web console's own API (console-static.ts serves its files) -------------------
  const traces = consoleTraceHandlers(node);
  // Traces show every user's requests: the `monitor` cluster privilege, as the nodes' stats need.
  add(['GET'], ['/_console/api/traces'], traces.list, clusterA('cluster:monitor/nodes/stats'));
  add(['GET'], ['/_console/api/traces/{trace_id}'], traces.get, clusterA('cluster:monitor/nodes/stats'));
  add(['GET'], ['/_console/api/log_ends'], consoleLogEndsHandler(node), clusterA('cluster:monitor/state'));
  add(['GET'], ['/_console/api/slow_log'], consoleSlowLogHandler(node), clusterA('cluster:monitor/nodes/stats'));

  return routes;
}
