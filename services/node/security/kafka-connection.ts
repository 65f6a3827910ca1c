/**
 * `kafka.security.protocol`, `kafka.sasl.*` and `kafka.ssl.*` (librdkafka's
 * names, which Kafka operators know) as kafkajs's `ssl` and `sasl` options,
 * for the commit log's and the membership's clients. PEM files are read
 * when the node starts; a bad one stops it with the setting's name.
 */
import type { KafkaConnectionSecurity } from '../../../shared/log/kafka-log.ts';
import type { KafkaClientSecurity } from './security-config.ts';
import { loadCertificate, loadPrivateKey } from './tls-files.ts';

export function kafkaConnection(k: KafkaClientSecurity): KafkaConnectionSecurity {
  const out: { ssl?: KafkaConnectionSecurity['ssl']; sasl?: KafkaConnectionSecurity['sasl'] } = {};
  if (k.protocol === 'ssl' || k.protocol === 'sasl_ssl') {
    const ca = k.sslCaLocation ? [loadCertificate('kafka.ssl.ca.location', k.sslCaLocation)] : undefined;
    const client =
      k.sslCertificateLocation && k.sslKeyLocation
        ? { cert: loadCertificate('kafka.ssl.certificate.location', k.sslCertificateLocation), key: loadPrivateKey('kafka.ssl.key.location', k.sslKeyLocation) }
        : {};
    // true: Node's bundled CAs, host names checked; otherwise those options on top of the same checks.
    out.ssl = ca === undefined && client.cert === undefined ? true : { ...(ca ? { ca } : {}), ...client };
  }
  if (k.protocol === 'sasl_plaintext' || k.protocol === 'sasl_ssl') {
    const { saslUsername: username, saslPassword: password } = k;
    switch (k.saslMechanism) {
      case 'plain':
        out.sasl = { mechanism: 'plain', username, password };
        break;
      case 'scram-sha-256':
        out.sasl = { mechanism: 'scram-sha-256', username, password };
        break;
      case 'scram-sha-512':
        out.sasl = { mechanism: 'scram-sha-512', username, password };
        break;
    }
  }
  return out;
}
