import path from 'node:path';
import { Database, type Migration, writeTransaction } from '@loadout/db';
import { type InstalledPlugin, Places, type PluginSource, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';

/** One row of the plugin registry. */
export interface PluginEntry {
  readonly name: string;
  /** The URL it was cloned from, with any credential removed. */
  readonly url: string;
  /** The commit the clone is at. */
  readonly commit: string;
  readonly ref: string | null;
  readonly enabled: boolean;
  /** Absolute path of the clone. */
  readonly dir: string;
  readonly installedAt: string;
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

interface PluginRow {
  name: string;
  url: string;
  ref: string | null;
  commit_id: string;
  enabled: number;
  installed_at: string;
}

/** The registry of installed plugins, in install order. Also the kernel's {@link PluginSource}. */
export interface PluginRegistry extends PluginSource {
  list(): PluginEntry[];
  get(name: string): PluginEntry | undefined;
  add(entry: { name: string; url: string; ref: string | null; commit: string }): void;
  setCommit(name: string, commit: string): void;
  setEnabled(name: string, enabled: boolean): void;
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

  list(): PluginEntry[] {
    const rows = this.db.prepare('SELECT name, url, ref, commit_id, enabled, installed_at FROM plugins ORDER BY seq').all() as PluginRow[];
    return rows.map((row) => this.toEntry(row));
  }

  get(name: string): PluginEntry | undefined {
    const row = this.db.prepare('SELECT name, url, ref, commit_id, enabled, installed_at FROM plugins WHERE name = ?').get(name) as
      | PluginRow
      | undefined;
    return row === undefined ? undefined : this.toEntry(row);
  }

  listInstalledPlugins(): InstalledPlugin[] {
    return this.list().map(({ name, dir, enabled }) => ({ name, dir, enabled }));
  }

  add(entry: { name: string; url: string; ref: string | null; commit: string }): void {
    writeTransaction(this.db, () => {
      this.db
        .prepare("INSERT INTO plugins (name, url, ref, commit_id, enabled, installed_at) VALUES (?, ?, ?, ?, 1, strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
        .run(entry.name, entry.url, entry.ref, entry.commit);
    });
  }

  setCommit(name: string, commit: string): void {
    writeTransaction(this.db, () => this.db.prepare('UPDATE plugins SET commit_id = ? WHERE name = ?').run(commit, name));
  }

  setEnabled(name: string, enabled: boolean): void {
    writeTransaction(this.db, () => this.db.prepare('UPDATE plugins SET enabled = ? WHERE name = ?').run(enabled ? 1 : 0, name));
  }

  remove(name: string): void {
    writeTransaction(this.db, () => this.db.prepare('DELETE FROM plugins WHERE name = ?').run(name));
  }

  transaction<T>(work: () => T): T {
    return writeTransaction(this.db, work);
  }

  private toEntry(row: PluginRow): PluginEntry {
    return {
      name: row.name,
      url: row.url,
      ref: row.ref,
      commit: row.commit_id,
      enabled: row.enabled === 1,
      dir: path.join(this.places.pluginsDir, row.name),
      installedAt: row.installed_at,
    };
  }
}
