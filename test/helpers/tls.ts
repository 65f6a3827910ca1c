/**
 * TLS fixtures: a throwaway CA and certificates it signed, made with Debian's
 * openssl (EC P-256 keys: quick to make), and a JSON client over HTTPS that
 * trusts that CA.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';

export interface TestCertificates {
  readonly dir: string;
  readonly caCert: string;
  /** Certificate and key of a node, for 127.0.0.1 and localhost. */
  readonly nodeCert: string;
  readonly nodeKey: string;
  /** Read CA certificate, for clients. */
  readonly ca: Buffer;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA and one certificate it signed (named `name`), in `dir`. */
export function makeCertificates(dir: string, name = 'node'): TestCertificates {
  openssl(dir, ['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=logsearch test CA']);
  return { ...signCertificate(dir, name), dir, caCert: join(dir, 'ca.crt'), ca: readFileSync(join(dir, 'ca.crt')) };
}

/** Another certificate from the CA of `dir`, for the names in `san` (openssl's subjectAltName syntax). */
export function signCertificate(dir: string, name: string, san = 'IP:127.0.0.1,DNS:localhost'): { nodeCert: string; nodeKey: string } {
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\n`);
  openssl(dir, ['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`]);
  return { nodeCert: join(dir, `${name}.crt`), nodeKey: join(dir, `${name}.key`) };
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
  readonly text: string;
}

/** One request over HTTPS trusting `ca`; JSON bodies in and out. */
export function httpsJson(base: string, ca: Buffer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, ca, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // plain text (_cat)
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}
