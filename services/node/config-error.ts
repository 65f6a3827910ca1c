/**
 * The error of a setting the node cannot start with. Its own module, below
 * every folder, so the code that reads a setting's files (security's TLS
 * material) throws it without importing config.ts from a layer beneath it.
 */
/** A setting that cannot be used: one line for the user, no stack. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
