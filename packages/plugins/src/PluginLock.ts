import path from 'node:path';
import { Places, redactCredentials, token, zodShape } from '@loadout/kernel';
import { trackedFs, writeFileAtomicSync } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { PLUGIN_NAME_PATTERN } from './parsePluginName.js';
import { PluginDefinition } from './PluginDefinition.js';
import { PluginLockInvalidError } from './PluginErrors.js';
import { type PluginEntry, PluginRegistry } from './PluginRegistry.js';

/** The lock file's name in the owner's capabilities folder, so it travels with their fork. */
export const PLUGIN_LOCK_FILE = 'loadout-lock.json';

const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

// The schemas are built on first use (z.lazy): only a command that reads the lock file pays for them.

/** One plugin as the lock records it; the list's order is the plugins' precedence order. */
export const PluginLockEntry = z.lazy(() =>
  z.strictObject({
    name: z.string().regex(PLUGIN_NAME_PATTERN, 'is not a valid plugin name'),
    source: z.strictObject({
      /** The git URL, with any credential removed. */
      url: z.string().min(1).max(4096),
      /** The plugin's root inside the repository; empty for the repository itself. */
      path: z.string().max(1024).default(''),
      /** The branch or tag it follows, or null for the remote's default branch. */
      ref: z.string().max(255).nullable().default(null),
    }),
    commit: z.string().regex(COMMIT, 'is not a full commit id'),
    /** Held at `commit` (a tag or a pinned commit); a sync checks it out detached. */
    pinned: z.boolean().default(false),
    enabled: z.boolean(),
    marketplace: z.strictObject({ name: z.string(), url: z.string(), plugin: z.string() }).optional(),
    definition: PluginDefinition.optional(),
  }),
);
export type PluginLockEntry = z.infer<typeof PluginLockEntry>;

export const PluginLockDocument = z.lazy(() =>
  z.strictObject({
    lockfileVersion: z.literal(1),
    plugins: z.array(PluginLockEntry).max(10_000),
  }),
);
export type PluginLockDocument = z.infer<typeof PluginLockDocument>;
const lockShape = zodShape(PluginLockDocument);

/** What the lock records of an installed plugin. */
export function lockEntryOf(entry: PluginEntry): PluginLockEntry {
  return {
    name: entry.name,
    source: { url: redactCredentials(entry.url), path: entry.path, ref: entry.ref },
    commit: entry.commit,
    pinned: entry.pinned,
    enabled: entry.enabled,
    ...(entry.marketplace === null ? {} : { marketplace: entry.marketplace }),
    ...(entry.definition === null ? {} : { definition: entry.definition }),
  };
}

/**
 * `capabilities/loadout-lock.json`: which plugins the owner runs, from where, at which commit,
 * enabled or not, in which order. Rewritten (atomically, inside the registry's write transaction)
 * on every install, update, enable, disable and uninstall; `plugins sync` makes another machine
 * match it.
 */
export interface PluginLock {
  /** Absolute path of the lock file. */
  readonly file: string;
  /** The lock as the file holds it; null when there is none. A file that is not a valid lock is refused. */
  read(): PluginLockDocument | null;
  /**
   * Brings the named plugin's entry in line with the registry (added at the end, replaced in
   * place, or removed when it is no longer installed), leaving every other entry exactly as the
   * file has it — an entry pulled from another machine is kept until a sync. With no lock file
   * yet, writes the whole registry. Call it inside the registry's transaction.
   */
  record(name: string): void;
}
export const PluginLock = token<PluginLock>('plugins.lock');

@injectable()
export class PluginLockFile implements PluginLock {
  readonly file: string;

  constructor(
    @inject(Places) places: Places,
    @inject(PluginRegistry) private readonly registry: PluginRegistry,
  ) {
    this.file = path.join(places.capabilitiesDir, PLUGIN_LOCK_FILE);
  }

  read(): PluginLockDocument | null {
    let text: string;
    try {
      text = trackedFs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new PluginLockInvalidError(`cannot read ${this.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new PluginLockInvalidError(
        `${this.file} is not valid JSON (${(error as Error).message}); fix it (a merge left conflict markers?) before changing plugins`,
      );
    }
    const parsed = lockShape(raw);
    if (!parsed.ok) throw new PluginLockInvalidError(`${this.file} is not a valid lock file: ${parsed.reason}`);
    const names = new Set<string>();
    for (const entry of parsed.value.plugins) {
      if (names.has(entry.name)) throw new PluginLockInvalidError(`${this.file} lists plugin ${entry.name} twice`);
      names.add(entry.name);
    }
    return parsed.value;
  }

  record(name: string): void {
    const current = this.read();
    const entry = this.registry.get(name);
    let plugins: PluginLockEntry[];
    if (current === null) {
      plugins = this.registry.list().map(lockEntryOf);
    } else {
      plugins = [...current.plugins];
      const at = plugins.findIndex((plugin) => plugin.name === name);
      if (entry === undefined) {
        if (at !== -1) plugins.splice(at, 1);
      } else if (at === -1) {
        plugins.push(lockEntryOf(entry));
      } else {
        plugins[at] = lockEntryOf(entry);
      }
    }
    const text = renderPluginLock({ lockfileVersion: 1, plugins });
    if (current !== null && readTextOrNull(this.file) === text) return;
    writeFileAtomicSync(this.file, text);
  }
}

/** The lock file's text: two-space JSON with a final newline, keys in a fixed order, so diffs stay small. */
export function renderPluginLock(lock: PluginLockDocument): string {
  const plugins = lock.plugins.map((entry) => ({
    name: entry.name,
    source: { url: entry.source.url, path: entry.source.path, ref: entry.source.ref },
    commit: entry.commit,
    pinned: entry.pinned,
    enabled: entry.enabled,
    ...(entry.marketplace === undefined ? {} : { marketplace: entry.marketplace }),
    ...(entry.definition === undefined ? {} : { definition: entry.definition }),
  }));
  return `${JSON.stringify({ lockfileVersion: 1, plugins }, null, 2)}\n`;
}

function readTextOrNull(file: string): string | null {
  try {
    return trackedFs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
