/**
 * The project's small native addon (native/mmap, built by `npm install` with
 * node-gyp): memory maps of segment files (mapped-file.ts) and the C heap's
 * trim (native-heap.ts).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NativeAddon {
  map(path: string): ArrayBuffer;
  unmap(buffer: ArrayBuffer): void;
  advise(buffer: ArrayBuffer, advice: number): void;
  resident(buffer: ArrayBuffer): number;
  /** Absent from an addon built before it was added (a checkout that did not run `npm install` since). */
  trim?(): boolean;
}

const ADDON_PATH = join('native', 'mmap', 'build', 'Release', 'logsearch_mmap.node');

/** The addon, found from this file up to the package root (source tree or compiled dist/). */
function loadAddon(): NativeAddon {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, ADDON_PATH);
    if (existsSync(candidate)) return createRequire(import.meta.url)(candidate) as NativeAddon;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`native addon ${ADDON_PATH} not found: run \`npm install\` (it builds it with node-gyp)`);
    dir = parent;
  }
}

export const addon = loadAddon();
