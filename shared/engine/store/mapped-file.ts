/**
 * Files mapped read-only into memory, through the project's small native
 * addon (native/mmap): Node has no mmap of its own. A map's pages are the
 * operating system's page cache; they count towards the process's RSS only
 * once touched, and `advise('dontneed')` or `unmap()` gives them back at once
 * instead of whenever the garbage collector finalizes the buffer
 * (docs/decisions/003).
 */
import { addon } from './native-addon.ts';

const ADVICE = { normal: 0, random: 1, sequential: 2, willneed: 3, dontneed: 4 } as const;
export type Advice = keyof typeof ADVICE;

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
