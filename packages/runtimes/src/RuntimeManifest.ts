import path from 'node:path';
import { isJsonObject, isTextWithin } from '@loadout/kernel';
import { trackedFs, writeFileAtomicSync } from '@loadout/files';
import { z } from 'zod';
import { checkRecordShape, readRecordJson } from './readRecordFile.js';

/** The file in each runtime root that records what Loadout wrote there. Hidden, so no runtime reads it as a skill. */
export const MANIFEST_FILE = '.loadout-manifest.json';

/**
 * Whether `name` is one folder name directly inside a root that a manifest or the trash may name:
 * not hidden, no separator, no NUL, at most 255 bytes. Anything else in a manifest is refused
 * before a path is built from it.
 */
export function isSafeEntryName(name: string): boolean {
  return name !== '' && !name.startsWith('.') && !/[/\\\0]/.test(name) && Buffer.byteLength(name) <= 255;
}

const entryName = z.string().refine(isSafeEntryName, 'must be one folder name, not hidden');
const SHA256 = /^[0-9a-f]{64}$/;
const LEVELS = ['project', 'global'] as const;

const manifestEntrySchema = z.object({
  /** What the entry is; skill folders are the only kind so far (absent in older manifests). */
  kind: z.literal('skill').default('skill'),
  /** The folder Loadout wrote, directly inside the root. */
  path: entryName,
  /** The skill's name as the runtime lists it (its valid Agent Skills name). */
  name: z.string().min(1).max(64),
  /** The bundle hash Loadout wrote; a folder whose hash differs was edited since. */
  hash: z.string().regex(SHA256),
  source: z.object({
    id: z.string().min(1).max(64),
    level: z.enum(LEVELS),
    plugin: z.string().max(64).nullable(),
  }),
  writtenAt: z.string(),
});

const manifestSchema = z.object({
  version: z.literal(1),
  entries: z.array(manifestEntrySchema),
});

export type ManifestEntry = z.infer<typeof manifestEntrySchema>;
export type ManifestSource = ManifestEntry['source'];

/**
 * A manifest's entries when every one is plainly what `manifestSchema` accepts, built as the schema
 * builds them (fields in the schema's order, unknown fields dropped, an absent `kind` filled in);
 * null for anything else, which the schema then judges with its own error. Every apply reads the
 * manifest of each root it writes, hundreds of entries each, and the schema's walk cost more than
 * the rest of the reading; `RuntimeManifest.test.ts` checks both agree.
 */
export function plainEntries(raw: unknown): ManifestEntry[] | null {
  if (!isJsonObject(raw) || raw.version !== 1 || !Array.isArray(raw.entries)) return null;
  const entries: ManifestEntry[] = [];
  for (const item of raw.entries as unknown[]) {
    if (!isJsonObject(item)) return null;
    const { kind, path: entryPath, name, hash, source, writtenAt } = item;
    if ((kind !== undefined && kind !== 'skill') || typeof entryPath !== 'string' || !isSafeEntryName(entryPath)) return null;
    if (!isTextWithin(name, 1, 64) || typeof hash !== 'string' || !SHA256.test(hash) || typeof writtenAt !== 'string') return null;
    if (!isJsonObject(source)) return null;
    const { id, level, plugin } = source;
    if (!isTextWithin(id, 1, 64) || !(LEVELS as readonly unknown[]).includes(level) || !(plugin === null || isTextWithin(plugin, 0, 64)))
      return null;
    entries.push({
      kind: 'skill',
      path: entryPath,
      name,
      hash,
      source: { id, level: level as ManifestSource['level'], plugin },
      writtenAt,
    });
  }
  return entries;
}

/**
 * What Loadout wrote into one runtime root, by folder. Read before every plan, written once per
 * root after the files are in place.
 */
export class RuntimeManifest {
  private constructor(
    readonly rootDir: string,
    private readonly byPath: Map<string, ManifestEntry>,
  ) {}

  /** Reads `<rootDir>/.loadout-manifest.json`; an empty manifest when there is none. */
  static read(rootDir: string): RuntimeManifest {
    const raw = readRecordJson(rootDir, MANIFEST_FILE);
    if (raw === null) return new RuntimeManifest(rootDir, new Map());
    const entries = plainEntries(raw) ?? checkRecordShape(MANIFEST_FILE, manifestSchema, raw).entries;
    const byPath = new Map<string, ManifestEntry>();
    for (const entry of entries) byPath.set(entry.path, entry);
    return new RuntimeManifest(rootDir, byPath);
  }

  get(entryPath: string): ManifestEntry | undefined {
    return this.byPath.get(entryPath);
  }

  entries(): ManifestEntry[] {
    return [...this.byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  set(entry: ManifestEntry): void {
    this.byPath.set(entry.path, entry);
  }

  delete(entryPath: string): void {
    this.byPath.delete(entryPath);
  }

  /**
   * Writes the manifest atomically; removes the file when nothing is managed any more, so a root
   * Loadout no longer uses holds nothing of Loadout's.
   */
  write(): void {
    const file = path.join(this.rootDir, MANIFEST_FILE);
    const entries = this.entries();
    if (entries.length === 0) {
      trackedFs.rmSync(file, { force: true });
      return;
    }
    writeFileAtomicSync(file, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`);
  }
}
