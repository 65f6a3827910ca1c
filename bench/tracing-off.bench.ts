/**
 * What the tracing instrumentation costs when tracing is off (no endpoint,
 * the default): the span helpers a search calls about a dozen times (a
 * query and a fetch per shard, two reduces) against calling the work
 * directly, and, for scale, the same helpers with tracing on (spans batched
 * as for an OTLP endpoint, then dropped by a no-op exporter).
 *
 *   npx tsx bench/tracing-off.bench.ts [calls]
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { inSpan, inSpanSync } from '../shared/telemetry/spans.ts';
import { startTracing } from '../shared/telemetry/tracing.ts';
import { printTable } from './report.ts';

const calls = Number(process.argv[2] ?? 2_000_000);

/** Stands for a shard phase: a resolved promise, so only the wrapping is measured. */
const work = (n: number): Promise<number> => Promise.resolve(n + 1);
const syncWork = (n: number): number => n + 1;

async function nsPerCall(run: (i: number) => Promise<number> | number): Promise<number> {
  let sink = 0;
  for (let i = 0; i < 200_000; i++) sink += await run(i); // warm-up: let the JIT settle
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += await run(i);
  const ns = Number(process.hrtime.bigint() - t0) / calls;
  if (sink === 42) process.stdout.write(''); // keep the result alive
  return ns;
}

const attrs = (i: number) => ({ 'logsearch.index': 'passinfo', 'logsearch.shard': i & 7 });

async function measureAll(): Promise<[number, number, number, number]> {
  return [
    await nsPerCall((i) => work(i)),
    await nsPerCall((i) => inSpan('query', attrs(i), () => work(i))),
    await nsPerCall((i) => syncWork(i)),
    await nsPerCall((i) => inSpanSync('reduce', attrs(i), () => syncWork(i))),
  ];
}

const off = await measureAll();
const dropAll: SpanExporter = {
  export: (_spans: ReadableSpan[], done: (r: ExportResult) => void) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};
const tracing = await startTracing({ serviceName: 'bench', nodeName: 'bench', clusterName: 'bench', exporter: dropAll, batch: true });
const on = await measureAll();
await tracing?.shutdown();

const f = (ns: number) => ns.toFixed(0);
printTable(`tracing helpers, ns per call (${calls.toLocaleString('en-US')} calls)`, [
  ['', 'plain', 'tracing off', 'off − plain', 'tracing on'],
  ['async (query, fetch)', f(off[0]), f(off[1]), f(off[1] - off[0]), f(on[1])],
  ['sync (reduce)', f(off[2]), f(off[3]), f(off[3] - off[2]), f(on[3])],
]);
