import path from 'node:path';
import { writeFileAtomicSync } from '@loadout/files';
import { z } from 'zod';
import { readRecordFile } from '../readRecordFile.js';

/** Where the record of the agents, commands and hooks Loadout wrote lives, inside the data folder. */
export const DOCUMENT_MANIFEST_FILE = path.join('runtimes', 'documents-manifest.json');

const HASH = /^[0-9a-f]{64}$/;

// Built on first use (z.lazy): only a plan that writes documents pays for them.
const entrySchema = z.lazy(() =>
  z.object({
    kind: z.enum(['agent', 'command', 'hook']),
    runtime: z.string().min(1).max(64),
    /** The file written (an agent, a command), or the settings file that holds the hook. */
    file: z.string().refine((value) => path.isAbsolute(value), 'must be absolute'),
    /** A hook's event as the runtime names it; null for a file. */
    event: z.string().max(64).nullable(),
    /** The name the runtime lists it under (a hook's Loadout id). */
    name: z.string().min(1).max(200),
    /** The hash of the file's bytes, or of the hook's handler group as written. */
    hash: z.string().regex(HASH),
    source: z.object({ id: z.string().min(1).max(64), level: z.enum(['project', 'global']), plugin: z.string().max(64).nullable() }),
    writtenAt: z.string(),
  }),
);

const madeSchema = z.lazy(() =>
  z.object({
    file: z.string().refine((value) => path.isAbsolute(value), 'must be absolute'),
    /** The JSON paths (`hooks`, `hooks/SessionStart`) Loadout added to hold its hooks, or `<file>` for the file itself: taken away with its last hook. */
    made: z.array(z.string().max(200)),
  }),
);

const manifestSchema = z.lazy(() =>
  z.object({ version: z.literal(1), entries: z.array(entrySchema), made: z.array(madeSchema).default([]) }),
);

export type DocumentManifestEntry = z.infer<typeof entrySchema>;
type MadeRecord = z.infer<typeof madeSchema>;

/** The made-path that stands for a whole file Loadout created. */
export const MADE_FILE = '<file>';

/**
 * The agents, commands and hook entries Loadout wrote into runtimes, kept in the data folder (the
 * runtimes' folders and settings belong to the user; nothing of Loadout's is added to them). A
 * document is Loadout's only while it is recorded here and still hashes to what was recorded: a
 * file the user edited is theirs again, a hook entry the user changed is no longer recognised.
 */
export class DocumentManifest {
  private constructor(
    private readonly dataDir: string,
    private entries: DocumentManifestEntry[],
    private made: MadeRecord[],
  ) {}

  static read(dataDir: string): DocumentManifest {
    const read = readRecordFile(dataDir, DOCUMENT_MANIFEST_FILE, manifestSchema);
    return read === null ? new DocumentManifest(dataDir, [], []) : new DocumentManifest(dataDir, read.entries, read.made);
  }

  /** Every entry of one runtime. */
  entriesOf(runtime: string): DocumentManifestEntry[] {
    return this.entries.filter((entry) => entry.runtime === runtime);
  }

  set(entry: DocumentManifestEntry): void {
    this.entries = [...this.entries.filter((other) => !sameEntry(other, entry)), entry];
  }

  delete(entry: Pick<DocumentManifestEntry, 'runtime' | 'file' | 'event' | 'name'>): void {
    this.entries = this.entries.filter((other) => !sameEntry(other, entry));
  }

  /** What Loadout added to a settings file to hold its hooks. */
  madeIn(file: string): readonly string[] {
    return this.made.find((record) => record.file === file)?.made ?? [];
  }

  recordMade(file: string, made: readonly string[]): void {
    const before = this.madeIn(file);
    const all = [...before, ...made.filter((item) => !before.includes(item))];
    this.made = [...this.made.filter((record) => record.file !== file), ...(all.length === 0 ? [] : [{ file, made: all }])];
  }

  forgetMade(file: string, made: readonly string[]): void {
    this.made = this.made
      .map((record) => (record.file === file ? { file, made: record.made.filter((item) => !made.includes(item)) } : record))
      .filter((record) => record.made.length > 0);
  }

  write(): void {
    writeFileAtomicSync(
      path.join(this.dataDir, DOCUMENT_MANIFEST_FILE),
      `${JSON.stringify({ version: 1, entries: this.entries, made: this.made }, null, 2)}\n`,
    );
  }
}

function sameEntry(a: Pick<DocumentManifestEntry, 'runtime' | 'file' | 'event' | 'name'>, b: typeof a): boolean {
  return a.runtime === b.runtime && a.file === b.file && a.event === b.event && a.name === b.name;
}
