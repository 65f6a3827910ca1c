/**
 * The security part of a node's configuration, with Elasticsearch's setting
 * names (`xpack.security.*`), and the Kafka client's TLS and SASL settings
 * (`kafka.security.protocol`, `kafka.sasl.*`, `kafka.ssl.*`, librdkafka's
 * names). Everything is off by default, as in Elasticsearch 6.8.
 */

/** `xpack.security.{http,transport}.ssl.*`: PEM files, read when the node starts (tls-files.ts). */
export interface SslConfig {
  readonly enabled: boolean;
  /** `.key`: the node's private key (PEM). */
  readonly key: string;
  /** `.certificate`: the node's certificate (PEM), may hold its chain. */
  readonly certificate: string;
  /** `.certificate_authorities`: CA certificates (PEM files) trusted for the peer's certificate. */
  readonly certificateAuthorities: readonly string[];
}

/** `xpack.security.http.ssl.client_authentication`, as Elasticsearch names its values. */
export type ClientAuthentication = 'none' | 'optional' | 'required';

/** `xpack.security.transport.ssl.verification_mode`: what of the peer's certificate is checked. */
export type VerificationMode = 'full' | 'certificate' | 'none';

export interface HttpSslConfig extends SslConfig {
  readonly clientAuthentication: ClientAuthentication;
}

export interface TransportSslConfig extends SslConfig {
  readonly verificationMode: VerificationMode;
}

export interface SecurityConfig {
  /** `xpack.security.enabled`: authentication and authorization on every HTTP request. */
  readonly enabled: boolean;
  readonly http: HttpSslConfig;
  readonly transport: TransportSslConfig;
}

/** librdkafka's `security.protocol` values, which kafkajs's ssl/sasl options express. */
export type KafkaSecurityProtocol = 'plaintext' | 'ssl' | 'sasl_plaintext' | 'sasl_ssl';

/** The SASL mechanisms kafkajs implements without plugins. */
export type KafkaSaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** How the node's Kafka clients (log, membership) reach the brokers. */
export interface KafkaClientSecurity {
  readonly protocol: KafkaSecurityProtocol;
  readonly saslMechanism: KafkaSaslMechanism;
  readonly saslUsername: string;
  readonly saslPassword: string;
  /** `kafka.ssl.ca.location`: CA certificates (PEM) for the brokers' certificates; empty = the system's. */
  readonly sslCaLocation: string;
  /** `kafka.ssl.certificate.location` / `kafka.ssl.key.location`: a client certificate, for brokers that ask for one. */
  readonly sslCertificateLocation: string;
  readonly sslKeyLocation: string;
}

export const KAFKA_PLAINTEXT: KafkaClientSecurity = {
  protocol: 'plaintext',
  saslMechanism: 'plain',
  saslUsername: '',
  saslPassword: '',
  sslCaLocation: '',
  sslCertificateLocation: '',
  sslKeyLocation: '',
};
