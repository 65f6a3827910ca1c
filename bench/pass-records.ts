/** The pass-record generator lives with the application; benchmarks and tests use it from here too. */
export * from '../services/passinfo/pass-record-generator.ts';
