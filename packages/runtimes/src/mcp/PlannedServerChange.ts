import type { ManifestSource } from '../RuntimeManifest.js';
import type { McpEntryValue } from './McpConfigDocument.js';
import type { McpConfigFile } from './RuntimeMcpSupport.js';

/**
 * What applying does to one server entry of one runtime's configuration file.
 * - `create` adds an entry; `update` replaces Loadout's own unedited entry whose source changed
 * - `retire` removes a managed entry no longer wanted, keeping its value in the trash
 * - `release` stops managing an entry the user edited and no one wants any more (it stays)
 * - `forget` drops a record whose entry is already gone
 */
export type ServerChangeAction = 'create' | 'update' | 'retire' | 'release' | 'forget';

/** One change, with the absolute path and the values the executor needs. Never printed as is: it holds secrets. */
export interface PlannedServerChange {
  readonly kind: 'server';
  readonly action: ServerChangeAction;
  readonly runtime: string;
  readonly target: McpConfigFile;
  /** The entry's name in the file. */
  readonly name: string;
  /** The Loadout id behind it (`loadout` for the bridge). */
  readonly id: string;
  /** What to write, for create and update. */
  readonly value: McpEntryValue | null;
  /** The hash the entry has after the change (or had, for retire and release). */
  readonly hash: string | null;
  /** The hash the entry must still have when the change runs; null: it must be absent. */
  readonly expectedHash: string | null;
  /** The value being retired, for the trash. */
  readonly current: unknown;
  readonly source: ManifestSource;
  readonly bridge: boolean;
  /** The server document, for reports. */
  readonly sourcePath: string | null;
  readonly reason: string;
}
