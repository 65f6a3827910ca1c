/**
 * The legacy `elasticsearch` client (16.x) ships no types: what the client
 * flows test uses of it. Its API methods return promises of response bodies.
 */
declare module 'elasticsearch' {
  export class Client {
    constructor(opts: { host: string; apiVersion: string; log?: unknown; ssl?: { ca?: string | Buffer } });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    readonly [api: string]: any;
  }
  const legacy: { Client: typeof Client };
  export default legacy;
}
