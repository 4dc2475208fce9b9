import path from 'node:path';
import { writeFileAtomicSync } from '@loadout/files';
import { z } from 'zod';
import { readRecordFile } from '../readRecordFile.js';

/** Where the record of the server entries Loadout wrote lives, inside the data folder. */
export const MCP_MANIFEST_FILE = path.join('runtimes', 'mcp-manifest.json');

// The schemas are built on first use (z.lazy): only a command that reads this manifest pays for them.
const sourceSchema = z.lazy(() =>
  z.object({ id: z.string().min(1).max(64), level: z.enum(['project', 'global']), plugin: z.string().max(64).nullable() }),
);

const entrySchema = z.lazy(() =>
  z.object({
    kind: z.literal('server'),
    runtime: z.string().min(1).max(64),
    /** Absolute path of the configuration file. */
    file: z.string().refine((value) => path.isAbsolute(value), 'must be absolute'),
    /** The entry's name in that file. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
    /** The hash of the value Loadout wrote; null only while a first write is pending. */
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    source: sourceSchema,
    /** The entry that registers Loadout itself (`loadout mcp`), not a server document. */
    bridge: z.boolean().default(false),
    writtenAt: z.string(),
    /**
     * A write in progress, recorded before the file is touched: the hash the entry will have
     * (null: removed) and the trash entry holding what it replaces. The next run settles it against
     * the file: done, or never happened.
     */
    pending: z
      .object({
        hash: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .nullable(),
        trash: z.string().nullable(),
      })
      .optional(),
  }),
);

const fileSchema = z.lazy(() =>
  z.object({
    file: z.string().refine((value) => path.isAbsolute(value), 'must be absolute'),
    /** What Loadout made to hold its first entry there, and takes away with its last: the file, the container key, or nothing. */
    made: z.enum(['file', 'container', 'nothing']),
  }),
);

const manifestSchema = z.lazy(() =>
  z.object({ version: z.literal(1), entries: z.array(entrySchema), files: z.array(fileSchema).default([]) }),
);

export type McpManifestEntry = z.infer<typeof entrySchema>;
export type McpManifestFile = z.infer<typeof fileSchema>;

/**
 * The server entries Loadout wrote into runtimes' configuration files, kept in the data folder
 * (the files belong to the user; nothing of Loadout's is added to them). An entry is Loadout's
 * only while it is recorded here and its value still hashes to what was recorded.
 */
export class McpManifest {
  private constructor(
    private readonly dataDir: string,
    private entries: McpManifestEntry[],
    private files: McpManifestFile[],
  ) {}

  static read(dataDir: string): McpManifest {
    const read = readRecordFile(dataDir, MCP_MANIFEST_FILE, manifestSchema);
    return read === null ? new McpManifest(dataDir, [], []) : new McpManifest(dataDir, read.entries, read.files);
  }

  /** The entries recorded for one runtime's file. */
  entriesOf(runtime: string, file: string): McpManifestEntry[] {
    return this.entries.filter((entry) => entry.runtime === runtime && entry.file === file);
  }

  get(runtime: string, file: string, name: string): McpManifestEntry | undefined {
    return this.entries.find((entry) => entry.runtime === runtime && entry.file === file && entry.name === name);
  }

  set(entry: McpManifestEntry): void {
    this.entries = [
      ...this.entries.filter((other) => !(other.runtime === entry.runtime && other.file === entry.file && other.name === entry.name)),
      entry,
    ];
  }

  delete(runtime: string, file: string, name: string): void {
    this.entries = this.entries.filter((entry) => !(entry.runtime === runtime && entry.file === file && entry.name === name));
  }

  /** What Loadout made in a file to hold its entries; null when nothing is recorded. */
  madeIn(file: string): McpManifestFile['made'] | null {
    return this.files.find((record) => record.file === file)?.made ?? null;
  }

  recordMade(file: string, made: McpManifestFile['made']): void {
    if (this.madeIn(file) === null) this.files = [...this.files, { file, made }];
  }

  forgetMade(file: string): void {
    this.files = this.files.filter((record) => record.file !== file);
  }

  /**
   * Settles the pending writes of one file against what it holds now (`current`: name → hash, or
   * absent): a write that happened is committed, one that did not is dropped, with the trash
   * entry it had prepared (`discard`). Returns whether anything changed.
   */
  settle(runtime: string, file: string, current: ReadonlyMap<string, string>, discard: (trashId: string) => void): boolean {
    let changed = false;
    for (const entry of this.entriesOf(runtime, file)) {
      if (entry.pending === undefined) continue;
      changed = true;
      const now = current.get(entry.name) ?? null;
      const { pending, ...settled } = entry;
      if (now === pending.hash) {
        if (pending.hash === null) this.delete(runtime, file, entry.name);
        else this.set({ ...settled, hash: pending.hash });
        continue;
      }
      if (pending.trash !== null && now !== null) discard(pending.trash);
      if (entry.hash === null) this.delete(runtime, file, entry.name);
      else this.set(settled);
    }
    return changed;
  }

  /** Whether any write is still pending. */
  hasPending(): boolean {
    return this.entries.some((entry) => entry.pending !== undefined);
  }

  write(): void {
    const sorted = [...this.entries].sort((a, b) =>
      `${a.runtime}\0${a.file}\0${a.name}`.localeCompare(`${b.runtime}\0${b.file}\0${b.name}`),
    );
    writeFileAtomicSync(
      path.join(this.dataDir, MCP_MANIFEST_FILE),
      `${JSON.stringify({ version: 1, entries: sorted, files: this.files }, null, 2)}\n`,
    );
  }
}
