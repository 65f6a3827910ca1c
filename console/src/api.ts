/**
 * Every request of the console goes through here, to the node's public
 * REST API on the same origin.
 *
 * Authentication hook: when the node answers 401 (security enabled), the
 * console asks the user to sign in (signIn, set by main.ts), keeps the
 * credentials for this browser tab only (sessionStorage) and sends them as
 * HTTP Basic on every request from then on, so the console can do exactly
 * what the user may do, nothing more.
 */

export interface ApiResponse {
  readonly status: number;
  /** Milliseconds from sending to the whole body. */
  readonly took: number;
  readonly contentType: string;
  readonly text: string;
  /** The body parsed, when it is JSON. */
  readonly json: unknown;
}

const AUTH_KEY = 'logsearch.console.authorization';

type Credentials = { user: string; password: string } | null;
let signIn: ((message: string) => Promise<Credentials>) | null = null;
let asking: Promise<boolean> | null = null;

/** main.ts: how to ask the user for credentials after a 401 (the message says why). */
export function onSignInNeeded(fn: (message: string) => Promise<Credentials>): void {
  signIn = fn;
}

/**
 * Asks for credentials until the node accepts them (checked once with
 * `_xpack/security/_authenticate`, so a typo costs one failed login, not one
 * per waiting request) or the user cancels. Only accepted ones are kept.
 */
async function obtainCredentials(ask: (message: string) => Promise<Credentials>): Promise<boolean> {
  let message = 'The node asks for credentials.';
  while (true) {
    const creds = await ask(message);
    if (creds === null) return false;
    const auth = basic(creds.user, creds.password);
    const check = await fetch('/_xpack/security/_authenticate', { headers: { authorization: auth }, credentials: 'omit' });
    if (check.ok) {
      sessionStorage.setItem(AUTH_KEY, auth);
      return true;
    }
    message = check.status === 429 ? 'Too many failed sign-ins from this address: wait a minute, then try again.' : 'Wrong user or password.';
  }
}

function authorization(): string | null {
  return sessionStorage.getItem(AUTH_KEY);
}

export function signOut(): void {
  sessionStorage.removeItem(AUTH_KEY);
}

function basic(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return `Basic ${btoa(s)}`;
}

/** `poll`: a request the console makes by itself (refreshing, completion), not the user's; the node leaves it out of its traces. */
export interface RequestOptions {
  readonly poll?: boolean;
}

async function send(method: string, path: string, body: string | undefined, contentType: string, opts: RequestOptions): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (opts.poll) headers['x-logsearch-console'] = 'poll';
  if (body !== undefined && body !== '') headers['content-type'] = contentType;
  const auth = authorization();
  if (auth !== null) headers.authorization = auth;
  const started = performance.now();
  const res = await fetch(path, { method, headers, body: body === '' ? undefined : body, credentials: 'omit' });
  const text = await res.text();
  const took = performance.now() - started;
  const type = res.headers.get('content-type') ?? '';
  let json: unknown = undefined;
  if (type.includes('json') && text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, took, contentType: type, text, json };
}

/** Sends a request; after a 401 asks once for credentials and sends it again with them. */
export async function request(method: string, path: string, body?: string, contentType = 'application/json', opts: RequestOptions = {}): Promise<ApiResponse> {
  const res = await send(method, path, body, contentType, opts);
  if (res.status !== 401 || signIn === null) return res;
  // Credentials that no longer work are dropped; requests refused at the same time share one question.
  signOut();
  const ask = signIn;
  asking ??= obtainCredentials(ask).finally(() => (asking = null));
  if (!(await asking)) return res;
  return send(method, path, body, contentType, opts);
}

/** An error a request failed with: Elasticsearch's reason when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function reasonOf(res: ApiResponse): string {
  const j = res.json as { error?: { reason?: string; type?: string } | string } | undefined;
  if (j && typeof j.error === 'object' && j.error !== null) return `${j.error.type ?? 'error'}: ${j.error.reason ?? ''}`;
  if (j && typeof j.error === 'string') return j.error;
  return res.text.slice(0, 300) || `HTTP ${res.status}`;
}

/** A JSON request that must succeed: its parsed body, or an ApiError with Elasticsearch's reason. */
export async function json<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  const res = await request(method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json', opts);
  if (res.status >= 400) throw new ApiError(res.status, reasonOf(res));
  return res.json as T;
}
