// Types of scripts/build.mjs (plain JavaScript, so it runs before anything is compiled).
export declare const DIST: string;
export declare function distState(): 'missing' | 'stale' | 'fresh';
/** Compiles to dist/; returns the milliseconds it took. */
export declare function build(): number;
/** dist/, built first when missing or stale. */
export declare function ensureBuilt(): string;
