/**
 * The PEM files of an `xpack.security.*.ssl` group, read once when the node
 * starts, as the options Node's TLS takes. A file that cannot be read or is
 * not PEM stops the node with one line naming the setting (a ConfigError).
 */
import { readFileSync } from 'node:fs';
import type { SslConfig } from './security-config.ts';
import { ConfigError } from '../config-error.ts';

export interface TlsMaterial {
  readonly key: Buffer;
  readonly cert: Buffer;
  /** Empty: Node's bundled CAs are trusted. */
  readonly ca: readonly Buffer[];
}

function readPem(setting: string, path: string, marker: RegExp): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (err) {
    throw new ConfigError(`cannot read [${path}] of setting [${setting}]: ${(err as Error).message}`);
  }
  // A marker search over a bounded header line, not a regex over the whole file.
  if (!marker.test(data.subarray(0, Math.min(data.length, 64 * 1024)).toString('latin1'))) {
    throw new ConfigError(`[${path}] of setting [${setting}] is not a PEM file`);
  }
  return data;
}

const KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
const CERT = /-----BEGIN CERTIFICATE-----/;

export function loadTlsMaterial(prefix: string, ssl: SslConfig): TlsMaterial {
  return {
    key: readPem(`${prefix}.key`, ssl.key, KEY),
    cert: readPem(`${prefix}.certificate`, ssl.certificate, CERT),
    ca: ssl.certificateAuthorities.map((p) => readPem(`${prefix}.certificate_authorities`, p, CERT)),
  };
}

/** A CA file alone (`kafka.ssl.ca.location`). */
export function loadCertificate(setting: string, path: string): Buffer {
  return readPem(setting, path, CERT);
}

/** A key file alone (`kafka.ssl.key.location`). */
export function loadPrivateKey(setting: string, path: string): Buffer {
  return readPem(setting, path, KEY);
}
