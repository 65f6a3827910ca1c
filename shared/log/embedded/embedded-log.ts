/**
 * Alias of ../embedded-log.ts for importers that expect the class beside its
 * parts (services/node/node.ts does). One implementation, two paths.
 */
export { EmbeddedLog } from '../embedded-log.ts';
export type { EmbeddedLogOptions, RecoveryEvent } from '../embedded-log.ts';
