/**
 * `logsearch rebuild`: starts `POST /{index}/_rebuild` on a running node
 * (docs/rebuild.md) in the background and follows its task with a progress
 * bar until the alias has moved; a failed rebuild prints its reason and
 * exits 1.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError } from '../node/config.ts';
import { Progress } from '../../shared/terminal/progress.ts';

const HELP = `usage: logsearch rebuild --index <name> --dest <new index> [options]

Builds <dest> from the log of <index> with a new mapping, analyzers or
number of shards while writes go on, then moves --alias to it in one step
(docs/rebuild.md).

  --index <name>        the index (or alias of one index) to rebuild
  --dest <name>         the new index
  --mapping <file>      JSON: the new mappings ({"<type>": {"properties": ...}}), or
                        a create-index body ({"settings": ..., "mappings": ...})
  --settings <file>     JSON: the new index's settings (default: the source's shards and analysis)
  --shards <n>          number of shards of the new index
  --alias <name>        the alias to move to the new index once it caught up
  --delete-source       remove the source index with the switch
  --url <url>           the node (default http://127.0.0.1:9200, or LOGSEARCH_URL)
  --user <name:pass>    basic authentication (or LOGSEARCH_USER)
`;

const FLAGS = {
  index: { type: 'string' },
  dest: { type: 'string' },
  mapping: { type: 'string' },
  settings: { type: 'string' },
  shards: { type: 'string' },
  alias: { type: 'string' },
  'delete-source': { type: 'boolean', default: false },
  url: { type: 'string', default: process.env.LOGSEARCH_URL ?? 'http://127.0.0.1:9200' },
  user: { type: 'string', default: process.env.LOGSEARCH_USER },
  help: { type: 'boolean', short: 'h' },
} as const;

async function jsonFile(path: string, flag: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--${flag} ${path}: ${(err as Error).message}`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`--${flag} ${path}: ${(err as Error).message}`);
  }
}

interface TaskView {
  completed: boolean;
  task?: { status?: { phase?: string; ops_replayed?: number; ops_behind?: number } };
  response?: Record<string, unknown>;
  error?: { type?: string; reason?: string };
}

export async function runRebuild(argv: readonly string[]): Promise<number> {
  let f: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: false }>>['values'];
  try {
    f = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (f.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (f.index === undefined || f.dest === undefined) throw new ConfigError('--index and --dest are required (logsearch rebuild --help)');
  const dest: Record<string, unknown> = { index: f.dest };
  if (f.mapping !== undefined) {
    const m = await jsonFile(f.mapping, 'mapping');
    if ('mappings' in m || 'settings' in m) {
      if (m.mappings !== undefined) dest.mappings = m.mappings;
      if (m.settings !== undefined) dest.settings = m.settings;
    } else {
      dest.mappings = m;
    }
  }
  if (f.settings !== undefined) dest.settings = { ...((dest.settings as Record<string, unknown> | undefined) ?? {}), ...(await jsonFile(f.settings, 'settings')) };
  if (f.shards !== undefined) {
    const n = Number(f.shards);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`--shards must be a whole number of at least 1, got [${f.shards}]`);
    dest.settings = { ...((dest.settings as Record<string, unknown> | undefined) ?? {}), number_of_shards: n };
  }
  const base = f.url.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (f.user !== undefined) headers.authorization = `Basic ${Buffer.from(f.user).toString('base64')}`;
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: shown as text
    }
    return { status: res.status, body: parsed };
  };
  const reason = (body: unknown): string => {
    const e = (body as { error?: { type?: string; reason?: string } | string }).error;
    if (typeof e === 'string') return e;
    return e ? `${e.type}: ${e.reason}` : JSON.stringify(body);
  };

  const started = await call('POST', `/${encodeURIComponent(f.index)}/_rebuild?wait_for_completion=false`, {
    dest,
    alias: f.alias ?? null,
    delete_source: f['delete-source'],
  });
  if (started.status !== 200) {
    process.stderr.write(`logsearch rebuild: ${reason(started.body)}\n`);
    return 1;
  }
  const taskId = (started.body as { task: string }).task;
  process.stderr.write(`rebuilding [${f.index}] into [${f.dest}] (task ${taskId})\n`);
  let progress: Progress | null = null;
  for (;;) {
    const t = await call('GET', `/_tasks/${encodeURIComponent(taskId)}`);
    if (t.status !== 200) {
      process.stderr.write(`logsearch rebuild: task ${taskId}: ${reason(t.body)}\n`);
      return 1;
    }
    const view = t.body as TaskView;
    const st = view.task?.status ?? {};
    const replayed = st.ops_replayed ?? 0;
    const total = replayed + (st.ops_behind ?? 0);
    progress ??= total > 0 ? new Progress({ label: 'ops replayed', total }) : null;
    progress?.update(replayed, st.phase ?? '');
    if (view.completed) {
      if (view.error !== undefined) {
        progress?.finish();
        process.stderr.write(`logsearch rebuild: ${view.error.type}: ${view.error.reason}\n`);
        return 1;
      }
      const r = view.response ?? {};
      progress?.finish(Number(r.ops_replayed ?? replayed), 'done');
      process.stdout.write(`${JSON.stringify(r)}\n`);
      return 0;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}
