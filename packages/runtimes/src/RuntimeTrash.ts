import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { formatValidationError, readJsonInside, slugify } from '@loadout/kernel';
import { moveEntry, trackedFs, writeFileAtomicSync } from '@loadout/files';
import { z } from 'zod';
import { TrashEntryDamagedError, TrashEntryNotFoundError } from './RuntimeErrors.js';
import { isSafeEntryName } from './RuntimeManifest.js';

/** Where retired runtime skills wait, inside the data folder. */
export const TRASH_FOLDER = path.join('trash', 'runtimes');
const ENTRY_FILE = 'entry.json';
const BUNDLE_FOLDER = 'bundle';
const ENTRY_ID = /^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]{1,64}-[0-9a-f]{8}$/;

// The schemas are built on first use (z.lazy): only a command that reads the trash pays for them.
const skillTrashEntrySchema = z.lazy(() =>
  z.object({
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
  }),
);

const serverTrashEntrySchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    id: z.string().regex(ENTRY_ID),
    kind: z.literal('server'),
    /** The entry's name in the file. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
    runtime: z.string(),
    /** The configuration file it was in, and how that file is written. */
    target: z.object({
      file: z.string().refine((value) => path.isAbsolute(value)),
      scope: z.enum(['user', 'project']),
      format: z.enum(['json', 'toml', 'yaml']),
      container: z.string().min(1),
      writes: z.boolean(),
      note: z.string(),
      sharedLock: z.boolean(),
      createMode: z.number().int(),
      trailingCommas: z.boolean().optional(),
      /** A list of server names left off (Claude Code's `disabledMcpServers`), not a table of servers. */
      offList: z.array(z.string()).readonly().optional(),
    }),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    source: z.object({ id: z.string(), level: z.enum(['project', 'global']), plugin: z.string().nullable() }),
    bridge: z.boolean(),
    project: z.string().nullable(),
    retiredAt: z.string(),
    reason: z.string(),
  }),
);

const documentTrashEntrySchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    id: z.string().regex(ENTRY_ID),
    /** An agent or command file (kept under `bundle`), or a hook entry of a settings file (its value in `value.json`). */
    kind: z.enum(['agent', 'command', 'hook']),
    name: z.string().min(1).max(200),
    runtime: z.string(),
    /** The file it was, or the settings file that held the hook. */
    file: z.string().refine((value) => path.isAbsolute(value)),
    /** A hook's event as the runtime names it; null for a file. */
    event: z.string().max(64).nullable(),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    source: z.object({ id: z.string(), level: z.enum(['project', 'global']), plugin: z.string().nullable() }),
    project: z.string().nullable(),
    retiredAt: z.string(),
    reason: z.string(),
  }),
);

const trashEntrySchema = z.union([skillTrashEntrySchema, serverTrashEntrySchema, documentTrashEntrySchema]);

/** What the trash remembers about a retired skill folder: enough to put it back. */
export type SkillTrashEntry = z.infer<typeof skillTrashEntrySchema>;
/** What the trash remembers about a retired server entry; its value waits beside it. */
export type ServerTrashEntry = z.infer<typeof serverTrashEntrySchema>;
/** What the trash remembers about a retired agent, command or hook. */
export type DocumentTrashEntry = z.infer<typeof documentTrashEntrySchema>;
export type TrashEntry = SkillTrashEntry | ServerTrashEntry | DocumentTrashEntry;

/** A trash folder that holds a retired skill or value but whose `entry.json` cannot be used. */
export interface DamagedTrashEntry {
  readonly id: string;
  /** What is wrong with it, e.g. `entry.json is not valid JSON (…)`. */
  readonly problem: string;
}

/** The file beside a server's trash entry that holds the entry's value. */
const VALUE_FILE = 'value.json';

/**
 * Retired runtime skills and server entries, one folder each: `entry.json` (written first), then
 * the skill folder itself under `bundle/`, or the server entry's value in `value.json` (readable by
 * the owner only: it may hold credentials). An entry without its bundle or value is an interrupted
 * retire; it is not listed and is cleaned up by the next apply.
 */
export class RuntimeTrash {
  constructor(private readonly dataDir: string) {}

  private get dir(): string {
    return path.join(this.dataDir, TRASH_FOLDER);
  }

  /** Moves `<rootDir>/<entry>` into the trash and returns the entry that restores it. */
  retire(details: Omit<SkillTrashEntry, 'version' | 'id' | 'retiredAt' | 'kind'>, now: Date = new Date()): SkillTrashEntry {
    const entry: SkillTrashEntry = {
      version: 1,
      id: entryId(details.entry, 'skill', now),
      kind: 'skill',
      retiredAt: now.toISOString(),
      ...details,
    };
    const folder = path.join(this.dir, entry.id);
    trackedFs.mkdirSync(folder, { recursive: true });
    writeFileAtomicSync(path.join(folder, ENTRY_FILE), `${JSON.stringify(entry, null, 2)}\n`);
    moveFolder(path.join(details.rootDir, details.entry), path.join(folder, BUNDLE_FOLDER));
    return entry;
  }

  /**
   * Keeps a server entry's value before it is removed from its file, and returns the entry that
   * puts it back. The value goes in last: until it is there the entry does not count.
   */
  keepServer(
    details: Omit<ServerTrashEntry, 'version' | 'id' | 'retiredAt' | 'kind'>,
    value: unknown,
    now: Date = new Date(),
  ): ServerTrashEntry {
    const entry: ServerTrashEntry = {
      version: 1,
      id: entryId(details.name, 'server', now),
      kind: 'server',
      retiredAt: now.toISOString(),
      ...details,
    };
    const folder = path.join(this.dir, entry.id);
    trackedFs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(path.join(folder, ENTRY_FILE), `${JSON.stringify(entry, null, 2)}\n`);
    writeFileAtomicSync(path.join(folder, VALUE_FILE), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    return entry;
  }

  /**
   * Keeps a retired agent or command file (moved in) or hook entry (its value written beside it)
   * and returns the entry that puts it back. What it keeps goes in last: until then it does not count.
   */
  keepDocument(
    details: Omit<DocumentTrashEntry, 'version' | 'id' | 'retiredAt'>,
    value: unknown,
    now: Date = new Date(),
  ): DocumentTrashEntry {
    const entry: DocumentTrashEntry = {
      version: 1,
      id: entryId(details.name, details.kind, now),
      retiredAt: now.toISOString(),
      ...details,
    };
    const folder = path.join(this.dir, entry.id);
    trackedFs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(path.join(folder, ENTRY_FILE), `${JSON.stringify(entry, null, 2)}\n`);
    if (entry.kind === 'hook') writeFileAtomicSync(path.join(folder, VALUE_FILE), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    else moveFolder(entry.file, path.join(folder, BUNDLE_FOLDER));
    return entry;
  }

  /** The value a server's or a hook's trash entry keeps. */
  serverValue(entry: ServerTrashEntry | DocumentTrashEntry): unknown {
    return readJsonInside(path.join(this.dir, entry.id), path.join(this.dir, entry.id, VALUE_FILE));
  }

  /** Forgets an entry (a server's value that turned out never to have left its file, or one put back). */
  discard(id: string): void {
    if (ENTRY_ID.test(id)) trackedFs.rmSync(path.join(this.dir, id), { recursive: true, force: true });
  }

  /** Complete entries, newest first. */
  list(): TrashEntry[] {
    return this.scan().entries;
  }

  /**
   * Folders that hold a retired skill or value whose entry cannot be read, newest first: they are
   * never removed by Loadout (what they keep may be all that is left of it), only shown.
   */
  damaged(): DamagedTrashEntry[] {
    return this.scan().damaged;
  }

  /** The complete entry with this id; a damaged one is refused with its problem. */
  get(id: string): TrashEntry {
    if (!ENTRY_ID.test(id)) throw new TrashEntryNotFoundError(id);
    const read = this.read(id);
    if (read === null) throw new TrashEntryNotFoundError(id);
    if ('problem' in read) throw new TrashEntryDamagedError(id, read.problem);
    return read;
  }

  private scan(): { entries: TrashEntry[]; damaged: DamagedTrashEntry[] } {
    let names: string[];
    try {
      names = trackedFs.readdirSync(this.dir);
    } catch {
      return { entries: [], damaged: [] };
    }
    const entries: TrashEntry[] = [];
    const damaged: DamagedTrashEntry[] = [];
    for (const name of names
      .filter((candidate) => ENTRY_ID.test(candidate))
      .sort()
      .reverse()) {
      const read = this.read(name);
      if (read === null) continue;
      if ('problem' in read) damaged.push(read);
      else entries.push(read);
    }
    return { entries, damaged };
  }

  /** Moves the entry's folder (a skill's) or file (an agent's or command's) to `target` and forgets the entry. */
  takeOut(entry: SkillTrashEntry | DocumentTrashEntry, target: string): void {
    const folder = path.join(this.dir, entry.id);
    moveFolder(path.join(folder, BUNDLE_FOLDER), target);
    trackedFs.rmSync(folder, { recursive: true, force: true });
  }

  /** Removes entries a crash left without their bundle: their folder never left its root. */
  removeIncomplete(): void {
    let names: string[];
    try {
      names = trackedFs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (ENTRY_ID.test(name) && !isComplete(path.join(this.dir, name))) {
        trackedFs.rmSync(path.join(this.dir, name), { recursive: true, force: true });
      }
    }
  }

  /** A complete entry, or what is wrong with it; null for an interrupted retire (nothing kept yet). */
  private read(id: string): TrashEntry | DamagedTrashEntry | null {
    const folder = path.join(this.dir, id);
    if (!isComplete(folder)) return null;
    let raw: unknown;
    try {
      raw = readJsonInside(folder, path.join(folder, ENTRY_FILE));
    } catch (error) {
      return { id, problem: `${ENTRY_FILE} cannot be read: ${(error as Error).message}` };
    }
    const parsed = trashEntrySchema.safeParse(raw);
    if (!parsed.success) return { id, problem: `${ENTRY_FILE} is not a trash entry (${formatValidationError(parsed.error)})` };
    if (parsed.data.id !== id) return { id, problem: `${ENTRY_FILE} names another entry (${parsed.data.id})` };
    return parsed.data;
  }
}

/** Whether a trash folder holds what its entry keeps: a skill's bundle or a server's value. */
function isComplete(folder: string): boolean {
  return trackedFs.existsSync(path.join(folder, BUNDLE_FOLDER)) || trackedFs.existsSync(path.join(folder, VALUE_FILE));
}

/** `<UTC stamp>-<slug of the name>-<8 hex>`: sortable by time, unique, safe as a folder name. */
function entryId(name: string, fallback: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${slugify(name) || fallback}-${randomBytes(4).toString('hex')}`;
}

/** Moves a folder (the kernel's one `moveEntry`: a rename, or a whole copy then the original's removal across file systems). */
export function moveFolder(from: string, to: string): void {
  trackedFs.mkdirSync(path.dirname(to), { recursive: true });
  moveEntry(from, to);
}
