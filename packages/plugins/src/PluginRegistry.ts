import path from 'node:path';
import { Database, markSessionChanged, type Migration, sessionChangeCounter, writeTransaction } from '@loadout/db';
import { Places, redactCredentials, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { PluginDefinition } from './PluginDefinition.js';

/** The marketplace entry a plugin was installed from. */
export interface PluginMarketplaceRef {
  /** The marketplace's name when it was installed. */
  readonly name: string;
  /** Its URL, with any credential removed. */
  readonly url: string;
  /** The entry's name in the marketplace. */
  readonly plugin: string;
}

/** One row of the plugin registry. */
export interface PluginEntry {
  readonly name: string;
  /** The URL it was cloned from, with any credential removed. */
  readonly url: string;
  /** The commit the clone is at. */
  readonly commit: string;
  readonly ref: string | null;
  /** True when the clone is held at one commit (a tag or a pinned commit) that update never moves. */
  readonly pinned: boolean;
  readonly enabled: boolean;
  /** Absolute path of the clone: `plugins/<name>`, or a repository's shared clone (see {@link clone}). */
  readonly dir: string;
  /**
   * The folder under `plugins/` of the repository clone this plugin shares with the other plugins
   * installed from the same repository (`_agents-3f2a1b9c`); null for a plugin with a clone of its
   * own in `plugins/<name>` (a whole repository installed by URL, or an install made before clones were shared).
   */
  readonly clone: string | null;
  /** The plugin's root inside the clone, `/`-separated; empty when it is the clone itself. */
  readonly path: string;
  /** Absolute path of the plugin's root: `dir`, or the folder `path` names inside it. */
  readonly root: string;
  readonly marketplace: PluginMarketplaceRef | null;
  /** What its marketplace entry says about it, or null when it was installed from a URL. */
  readonly definition: PluginDefinition | null;
  readonly installedAt: string;
}

/** What a new row holds; the registry adds the order, the flag and the time. */
export interface NewPluginEntry {
  readonly name: string;
  readonly url: string;
  readonly ref: string | null;
  readonly commit: string;
  readonly pinned?: boolean;
  readonly path?: string;
  readonly marketplace?: PluginMarketplaceRef | null;
  readonly definition?: PluginDefinition | null;
  readonly enabled?: boolean;
  /** The shared clone's folder under `plugins/`; none for a clone of its own in `plugins/<name>`. */
  readonly clone?: string | null;
}

export const pluginRegistryMigration: Migration = {
  id: 'plugins/001-registry',
  sql: `CREATE TABLE plugins (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    ref TEXT,
    commit_id TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    installed_at TEXT NOT NULL
  )`,
};

/** A plugin's root inside its clone, its marketplace entry, whether it is pinned, and an order the lock file can set. */
export const pluginSourcesMigration: Migration = {
  id: 'plugins/002-sources',
  sql: `ALTER TABLE plugins ADD COLUMN subdir TEXT NOT NULL DEFAULT '';
    ALTER TABLE plugins ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));
    ALTER TABLE plugins ADD COLUMN marketplace TEXT;
    ALTER TABLE plugins ADD COLUMN definition TEXT;
    ALTER TABLE plugins ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
    UPDATE plugins SET position = seq;`,
};

/**
 * The shared clone a plugin is a folder of: plugins from one repository share one clone (one fetch
 * updates them all). Rows made before hold null and keep their own clone in `plugins/<name>`.
 */
export const pluginSharedClonesMigration: Migration = {
  id: 'plugins/003-shared-clones',
  sql: 'ALTER TABLE plugins ADD COLUMN clone TEXT;',
};

interface PluginRow {
  name: string;
  url: string;
  ref: string | null;
  commit_id: string;
  enabled: number;
  installed_at: string;
  subdir: string;
  pinned: number;
  marketplace: string | null;
  definition: string | null;
  clone: string | null;
}

const COLUMNS = 'name, url, ref, commit_id, enabled, installed_at, subdir, pinned, marketplace, definition, clone';

/** The registry of installed plugins, in precedence order (install order unless the lock file set another). */
export interface PluginRegistry {
  list(): PluginEntry[];
  get(name: string): PluginEntry | undefined;
  add(entry: NewPluginEntry): void;
  setCommit(name: string, commit: string, pinned?: boolean): void;
  setEnabled(name: string, enabled: boolean): void;
  setDefinition(name: string, definition: PluginDefinition | null): void;
  /** Puts the named plugins first, in this order; the others keep their order after them. */
  setOrder(names: readonly string[]): void;
  /** Makes the plugin a folder of the shared clone `clone` (null: its own clone in `plugins/<name>`). */
  setClone(name: string, clone: string | null): void;
  remove(name: string): void;
  /**
   * Runs `work` holding the registry's write lock (one `BEGIN IMMEDIATE` transaction across
   * processes), so a check, a folder move and a row change happen as one step; rolled back if it throws.
   */
  transaction<T>(work: () => T): T;
}
export const PluginRegistry = token<PluginRegistry>('plugins.registry');

@injectable()
export class SqlitePluginRegistry implements PluginRegistry {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Places) private readonly places: Places,
  ) {}

  /**
   * The rows as last read, with the session counter read just before them. Every write of a plugin
   * row moves that counter in its own transaction ({@link write}), whichever process makes it, so
   * while the counter stands the rows do; rows read after the counter are never older than it.
   */
  private listed: { readonly counter: string; readonly entries: readonly PluginEntry[] } | null = null;

  list(): PluginEntry[] {
    // Inside a transaction the rows may be this transaction's own, rolled back later: never kept.
    if (this.db.inTransaction) return this.readAll();
    const counter = sessionChangeCounter(this.db);
    let listed = this.listed;
    if (listed?.counter !== counter) listed = this.listed = { counter, entries: this.readAll() };
    return [...listed.entries];
  }

  private readAll(): PluginEntry[] {
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM plugins ORDER BY position, seq`).all() as PluginRow[];
    return rows.map((row) => this.toEntry(row));
  }

  get(name: string): PluginEntry | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM plugins WHERE name = ?`).get(name) as PluginRow | undefined;
    return row === undefined ? undefined : this.toEntry(row);
  }

  add(entry: NewPluginEntry): void {
    this.write(() => {
      this.db
        .prepare(
          `INSERT INTO plugins (name, url, ref, commit_id, enabled, installed_at, subdir, pinned, marketplace, definition, clone, position)
           VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM plugins))`,
        )
        .run(
          entry.name,
          entry.url,
          entry.ref,
          entry.commit,
          entry.enabled === false ? 0 : 1,
          entry.path ?? '',
          entry.pinned === true ? 1 : 0,
          entry.marketplace == null ? null : JSON.stringify(entry.marketplace),
          entry.definition == null ? null : JSON.stringify(entry.definition),
          entry.clone ?? null,
        );
    });
  }

  setCommit(name: string, commit: string, pinned?: boolean): void {
    this.write(() => {
      if (pinned === undefined) this.db.prepare('UPDATE plugins SET commit_id = ? WHERE name = ?').run(commit, name);
      else this.db.prepare('UPDATE plugins SET commit_id = ?, pinned = ? WHERE name = ?').run(commit, pinned ? 1 : 0, name);
    });
  }

  setEnabled(name: string, enabled: boolean): void {
    this.write(() => this.db.prepare('UPDATE plugins SET enabled = ? WHERE name = ?').run(enabled ? 1 : 0, name));
  }

  setDefinition(name: string, definition: PluginDefinition | null): void {
    this.write(() =>
      this.db
        .prepare('UPDATE plugins SET definition = ? WHERE name = ?')
        .run(definition === null ? null : JSON.stringify(definition), name),
    );
  }

  setOrder(names: readonly string[]): void {
    this.write(() => {
      const rest = this.list().filter((entry) => !names.includes(entry.name));
      const update = this.db.prepare('UPDATE plugins SET position = ? WHERE name = ?');
      [...names, ...rest.map((entry) => entry.name)].forEach((name, index) => update.run(index + 1, name));
    });
  }

  setClone(name: string, clone: string | null): void {
    this.write(() => this.db.prepare('UPDATE plugins SET clone = ? WHERE name = ?').run(clone, name));
  }

  remove(name: string): void {
    this.write(() => this.db.prepare('DELETE FROM plugins WHERE name = ?').run(name));
  }

  transaction<T>(work: () => T): T {
    return writeTransaction(this.db, work);
  }

  /** One write of plugin rows: every session reads them, so it marks a session change in the same transaction. */
  private write(work: () => unknown): void {
    writeTransaction(this.db, () => {
      work();
      markSessionChanged(this.db);
    });
  }

  private toEntry(row: PluginRow): PluginEntry {
    const dir = path.join(this.places.pluginsDir, row.clone ?? row.name);
    return {
      name: row.name,
      // A row written before URLs were stored redacted may still hold a credential.
      url: redactCredentials(row.url),
      ref: row.ref,
      commit: row.commit_id,
      pinned: row.pinned === 1,
      enabled: row.enabled === 1,
      dir,
      clone: row.clone,
      path: row.subdir,
      root: row.subdir === '' ? dir : path.join(dir, ...row.subdir.split('/')),
      marketplace: row.marketplace === null ? null : (JSON.parse(row.marketplace) as PluginMarketplaceRef),
      definition: row.definition === null ? null : PluginDefinition.parse(JSON.parse(row.definition)),
      installedAt: row.installed_at,
    };
  }
}
