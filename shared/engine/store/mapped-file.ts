/**
 * Files mapped read-only into memory, through the project's small native
 * addon (native/mmap): Node has no mmap of its own. A map's pages are the
 * operating system's page cache; they count towards the process's RSS only
 * once touched, and `advise('dontneed')` or `unmap()` gives them back at once
 * instead of whenever the garbage collector finalizes the buffer
 * (docs/decisions/003).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface MmapAddon {
  map(path: string): ArrayBuffer;
  unmap(buffer: ArrayBuffer): void;
  advise(buffer: ArrayBuffer, advice: number): void;
  resident(buffer: ArrayBuffer): number;
}

const ADVICE = { normal: 0, random: 1, sequential: 2, willneed: 3, dontneed: 4 } as const;
export type Advice = keyof typeof ADVICE;

const ADDON_PATH = join('native', 'mmap', 'build', 'Release', 'logsearch_mmap.node');

/** The addon, found from this file up to the package root (source tree or compiled dist/). */
function loadAddon(): MmapAddon {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, ADDON_PATH);
    if (existsSync(candidate)) return createRequire(import.meta.url)(candidate) as MmapAddon;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`native addon ${ADDON_PATH} not found: run \`npm install\` (it builds it with node-gyp)`);
    dir = parent;
  }
}

const addon = loadAddon();

export interface MappedFile {
  /** The whole file. */
  readonly bytes: Uint8Array;
  advise(advice: Advice): void;
  /** Bytes of the file in memory now (mincore). */
  resident(): number;
  /** Unmaps now; the views of it read as empty afterwards. */
  unmap(): void;
}

export function mapFile(path: string): MappedFile {
  const buffer = addon.map(path);
  return {
    bytes: new Uint8Array(buffer),
    advise: (advice) => addon.advise(buffer, ADVICE[advice]),
    resident: () => addon.resident(buffer),
    unmap: () => addon.unmap(buffer),
  };
}
