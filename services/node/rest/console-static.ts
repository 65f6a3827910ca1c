/**
 * The web console's files at `/_console/` (console/, built by
 * scripts/build-console.mjs into `console-app/` beside the compiled
 * services, i.e. dist/console-app). They are read once, on the first
 * request that finds them, and served from memory; a name is looked up in
 * that table, so no request path ever reaches the file system.
 *
 * The page is static: it holds no data and talks to the node's public REST
 * API with the user's own credentials (console/src/api.ts), so serving it
 * needs none. A strict Content-Security-Policy allows only these files and
 * requests to this node.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_PATH = '/_console';
/** What serves the console: `{"app": "node" | "passinfo"}`. */
export const CONSOLE_APP_PATH = '/_console/api/app';

/** Scripts and styles only from the node, requests only to it, nothing framed, no inline code. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=UTF-8',
  '.js': 'text/javascript; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

interface ConsoleFile {
  readonly type: string;
  readonly body: Buffer;
}

/**
 * Where the built console is: `console-app/` at the root the services were
 * compiled to (dist/), or, when the node runs from its TypeScript sources,
 * the repository's dist/console-app.
 */
export function defaultConsoleDir(): string {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const beside = join(root, 'console-app');
  return existsSync(beside) ? beside : join(root, 'dist', 'console-app');
}

async function loadFiles(dir: string): Promise<Map<string, ConsoleFile> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  if (!names.includes('index.html')) return null;
  const files = new Map<string, ConsoleFile>();
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type !== undefined) files.set(name, { type, body: await readFile(join(dir, name)) });
  }
  return files;
}

function notFound(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(404).type('application/json; charset=UTF-8').send(JSON.stringify({ error: message, status: 404 }));
}

/**
 * Adds the console's routes to an HTTP server (fastify ranks them above a
 * catch-all route). On the node, `/_console/api/...` is the console's REST
 * API, in the route table: it goes to `dispatch` like any REST request. The
 * pass-record service (services/passinfo/http-api.ts) serves the same files
 * for its pass-record pages, without dispatch.
 */
export function registerConsole(
  app: FastifyInstance,
  dir: string,
  appName: 'node' | 'passinfo',
  dispatch?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  let files: Map<string, ConsoleFile> | null = null;
  const serve = async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    if (req.url.startsWith(`${CONSOLE_PATH}/api/`)) return dispatch ? dispatch(req, reply) : notFound(reply, `no console API [${req.url.split('?')[0]}]`);
    files ??= await loadFiles(dir);
    if (files === null) return notFound(reply, `the console is not built (no ${join(dir, 'index.html')}): run \`npm run build\``);
    const path = req.url.split('?')[0];
    const name = path === `${CONSOLE_PATH}/` ? 'index.html' : path.slice(CONSOLE_PATH.length + 1);
    const file = files.get(name);
    if (file === undefined) return notFound(reply, `no console file [${name}]`);
    return reply
      .code(200)
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .type(file.type)
      .send(file.body);
  };
  app.get(CONSOLE_PATH, async (_req, reply) => reply.redirect(`${CONSOLE_PATH}/`, 301));
  // Which pages to show (console/src/main.ts): the node's, or the pass-record service's. Says nothing else.
  app.get(CONSOLE_APP_PATH, async (_req, reply) => reply.code(200).type('application/json; charset=UTF-8').send(JSON.stringify({ app: appName })));
  app.get(`${CONSOLE_PATH}/*`, serve);
}
