import { contribute, type LoadoutModule, ScanSource } from '@loadout/kernel';
import type { FolderScanCacheOptions } from './FolderScanCache.js';
import { KeptScanSource } from './KeptScanSource.js';

/**
 * Makes the kernel's session loader keep what it read and watch the roots for changes: for a
 * long-running process (the server, `loadout mcp`). Each kernel gets its own source, closed with
 * it (`closeKernel`); a one-shot command leaves this out and reads the disk each time.
 */
export function keptReadsModule(options: FolderScanCacheOptions = {}): LoadoutModule {
  return { name: 'kept-reads', now: (container) => contribute(container, ScanSource, new KeptScanSource(options)) };
}
