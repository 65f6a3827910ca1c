/**
 * Mutual TLS on the node-to-node transport (`xpack.security.transport.ssl.*`):
 * both ends present a certificate and each checks the other's against the
 * configured CAs, so only nodes holding a certificate of the cluster's CA can
 * call a node's shard and admin actions. `verification_mode` as
 * Elasticsearch's: `full` also checks that the server's certificate names the
 * address dialled, `certificate` only that the CAs signed it, `none` nothing
 * (encryption without authentication: for trials only).
 */
import { checkServerIdentity, type ConnectionOptions, type TlsOptions } from 'node:tls';
import { isIP } from 'node:net';

/**
 * The transport's TLS as the node hands it down: the PEMs security/tls-files.ts
 * read at start and `xpack.security.transport.ssl.verification_mode`. Declared
 * here, in the transport's own terms, so the transport imports nothing of the
 * security layer above it.
 */
export interface TransportTls {
  readonly material: TransportTlsMaterial;
  readonly verificationMode: 'full' | 'certificate' | 'none';
}

export interface TransportTlsMaterial {
  readonly key: Buffer;
  readonly cert: Buffer;
  /** Empty: Node's bundled CAs are trusted. */
  readonly ca: readonly Buffer[];
}

function trusted(material: TransportTlsMaterial): { ca?: Buffer[] } {
  return material.ca.length > 0 ? { ca: [...material.ca] } : {};
}

/** The listening side: asks every peer for a certificate and refuses one the CAs did not sign. */
export function serverTlsOptions(t: TransportTls): TlsOptions {
  return { key: t.material.key, cert: t.material.cert, ...trusted(t.material), requestCert: true, rejectUnauthorized: t.verificationMode !== 'none' };
}

/** The dialling side, for one remote node. */
export function clientTlsOptions(t: TransportTls, host: string, port: number): ConnectionOptions {
  return {
    host,
    port,
    key: t.material.key,
    cert: t.material.cert,
    ...trusted(t.material),
    // SNI takes host names only.
    ...(isIP(host) === 0 ? { servername: host } : {}),
    rejectUnauthorized: t.verificationMode !== 'none',
    checkServerIdentity: t.verificationMode === 'full' ? checkServerIdentity : () => undefined,
  };
}
