import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readJsonInside, slugify, writeFileAtomicSync } from '@loadout/kernel';
import { z } from 'zod';
import { TrashEntryNotFoundError } from './RuntimeErrors.js';
import { isSafeEntryName } from './RuntimeManifest.js';

/** Where retired runtime skills wait, inside the data folder. */
export const TRASH_FOLDER = path.join('trash', 'runtimes');
const ENTRY_FILE = 'entry.json';
const BUNDLE_FOLDER = 'bundle';
const ENTRY_ID = /^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]{1,64}-[0-9a-f]{8}$/;

const trashEntrySchema = z.object({
  version: z.literal(1),
  id: z.string().regex(ENTRY_ID),
  name: z.string(),
  /** Absolute path of the runtime root the folder came from. */
  rootDir: z.string().refine((value) => path.isAbsolute(value)),
  /** What was retired; skill folders are the only kind so far (absent in older entries). */
  kind: z.literal('skill').default('skill'),
  /** The folder inside that root. */
  entry: z.string().refine(isSafeEntryName),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  runtime: z.string(),
  source: z.object({ id: z.string(), level: z.enum(['project', 'global']), plugin: z.string().nullable() }),
  /** The project the retiring apply ran for, so paths can be shown relative to it. */
  project: z.string().nullable(),
  retiredAt: z.string(),
  reason: z.string(),
});

/** What the trash remembers about a retired skill: enough to put it back. */
export type TrashEntry = z.infer<typeof trashEntrySchema>;

/**
 * Retired runtime skills, one folder each: `entry.json` (written first) and the skill folder itself
 * under `bundle/`. An entry without its bundle is an interrupted retire; it is not listed and is
 * cleaned up by the next retire.
 */
export class RuntimeTrash {
  constructor(private readonly dataDir: string) {}

  private get dir(): string {
    return path.join(this.dataDir, TRASH_FOLDER);
  }

  /** Moves `<rootDir>/<entry>` into the trash and returns the entry that restores it. */
  retire(details: Omit<TrashEntry, 'version' | 'id' | 'retiredAt' | 'kind'>, now: Date = new Date()): TrashEntry {
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const entry: TrashEntry = {
      version: 1,
      id: `${stamp}-${slugify(details.entry) || 'skill'}-${randomBytes(4).toString('hex')}`,
      kind: 'skill',
      retiredAt: now.toISOString(),
      ...details,
    };
    const folder = path.join(this.dir, entry.id);
    fs.mkdirSync(folder, { recursive: true });
    writeFileAtomicSync(path.join(folder, ENTRY_FILE), `${JSON.stringify(entry, null, 2)}\n`);
    moveFolder(path.join(details.rootDir, details.entry), path.join(folder, BUNDLE_FOLDER));
    return entry;
  }

  /** Complete entries, newest first. */
  list(): TrashEntry[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const entries: TrashEntry[] = [];
    for (const name of names) {
      if (!ENTRY_ID.test(name)) continue;
      const entry = this.read(name);
      if (entry !== null) entries.push(entry);
    }
    return entries.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  /** The complete entry with this id. */
  get(id: string): TrashEntry {
    const entry = ENTRY_ID.test(id) ? this.read(id) : null;
    if (entry === null) throw new TrashEntryNotFoundError(id);
    return entry;
  }

  /** Moves the entry's folder to `target` and forgets the entry. */
  takeOut(entry: TrashEntry, target: string): void {
    const folder = path.join(this.dir, entry.id);
    moveFolder(path.join(folder, BUNDLE_FOLDER), target);
    fs.rmSync(folder, { recursive: true, force: true });
  }

  /** Removes entries a crash left without their bundle: their folder never left its root. */
  removeIncomplete(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (ENTRY_ID.test(name) && !fs.existsSync(path.join(this.dir, name, BUNDLE_FOLDER))) {
        fs.rmSync(path.join(this.dir, name), { recursive: true, force: true });
      }
    }
  }

  private read(id: string): TrashEntry | null {
    const folder = path.join(this.dir, id);
    if (!fs.existsSync(path.join(folder, BUNDLE_FOLDER))) return null;
    let raw: unknown;
    try {
      raw = readJsonInside(folder, path.join(folder, ENTRY_FILE));
    } catch {
      return null;
    }
    const parsed = trashEntrySchema.safeParse(raw);
    return parsed.success && parsed.data.id === id ? parsed.data : null;
  }
}

/**
 * Moves a folder: a rename when both ends are on one file system, else a copy that keeps links as
 * links, then removal of the original (the copy is complete before anything is removed).
 */
export function moveFolder(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    fs.cpSync(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true, preserveTimestamps: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
}
