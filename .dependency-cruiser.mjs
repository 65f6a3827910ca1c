/**
 * The layers of services/node, top to bottom (docs/layers.md draws them).
 * A module may import from its own folder and from the layers below it, never
 * from a layer above; folders on one layer do not import each other; no two
 * files import each other in a circle. `npm run lint` runs this check.
 */
const LAYERS = [
  ['main.ts'],
  // The composition root: reads the configuration and assembles the node.
  ['node.ts', 'config.ts', 'settings.ts'],
  ['rest/'],
  ['coordinator/', 'security/', 'stats/'],
  ['copies/'],
  ['transport/'],
  ['indexer/'],
  ['shard-worker/'],
  ['search/'],
  ['cluster/'],
  ['realm/', 'tasks/'],
  ['logger.ts', 'timeouts.ts', 'request-ids.ts', 'version.ts', 'config-error.ts'],
];

const ROOT = 'services/node/';
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path pattern of a layer entry: a folder and everything in it, or one file. */
const pattern = (entry) => `^${escape(ROOT + entry)}${entry.endsWith('/') ? '' : '$'}`;
const rank = (i) => LAYERS[i].map(pattern);

const upward = LAYERS.slice(1).map((layer, k) => ({
  name: `layer-${layer.join('+')}`,
  comment: `${layer.join(', ')} may not import ${LAYERS.slice(0, k + 1).flat().join(', ')} (a layer above it)`,
  severity: 'error',
  from: { path: rank(k + 1) },
  to: { path: LAYERS.slice(0, k + 1).flatMap((l) => l.map(pattern)) },
}));

const sideways = LAYERS.flatMap((layer) =>
  layer
    .filter((entry) => entry.endsWith('/') && layer.filter((e) => e.endsWith('/')).length > 1)
    .map((entry) => ({
      name: `sibling-${entry.slice(0, -1)}`,
      comment: `${entry} may not import the other folders of its layer (${layer.filter((e) => e !== entry).join(', ')})`,
      severity: 'error',
      from: { path: pattern(entry) },
      to: { path: layer.filter((e) => e !== entry && e.endsWith('/')).map(pattern) },
    })),
);

const everyLayer = LAYERS.flat().map(pattern);

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'files of services/node that import each other, directly or through others',
      severity: 'error',
      from: { path: `^${ROOT}` },
      to: { circular: true },
    },
    {
      name: 'layer-unknown',
      comment: 'a module of services/node that is in no layer: add it to LAYERS here and to docs/layers.md',
      severity: 'error',
      from: { path: `^${ROOT}` },
      to: { path: `^${ROOT}`, pathNot: everyLayer },
    },
    {
      name: 'layer-unknown-importer',
      comment: 'a module of services/node that is in no layer: add it to LAYERS here and to docs/layers.md',
      severity: 'error',
      from: { path: `^${ROOT}`, pathNot: everyLayer },
      to: {},
    },
    ...upward,
    ...sideways,
  ],
  options: {
    includeOnly: `^${ROOT}`,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
