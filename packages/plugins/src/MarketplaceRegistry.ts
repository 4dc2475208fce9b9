import path from 'node:path';
import { Database, type Migration, writeTransaction } from '@loadout/db';
import { Places, redactCredentials, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';

/** One added marketplace: an index repository cloned into the data folder. */
export interface MarketplaceRow {
  readonly name: string;
  /** The URL it was cloned from, with any credential removed. */
  readonly url: string;
  readonly ref: string | null;
  /** The commit its clone is at. */
  readonly commit: string;
  /** Absolute path of its clone, `<dataDir>/marketplaces/<name>`. */
  readonly dir: string;
  readonly addedAt: string;
}

export const marketplaceRegistryMigration: Migration = {
  id: 'plugins/003-marketplaces',
  sql: `CREATE TABLE marketplaces (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    ref TEXT,
    commit_id TEXT NOT NULL,
    added_at TEXT NOT NULL
  )`,
};

interface Row {
  name: string;
  url: string;
  ref: string | null;
  commit_id: string;
  added_at: string;
}

/** The added marketplaces, in the order they were added. */
export interface MarketplaceRegistry {
  list(): MarketplaceRow[];
  get(name: string): MarketplaceRow | undefined;
  add(row: { name: string; url: string; ref: string | null; commit: string }): void;
  setCommit(name: string, commit: string): void;
  remove(name: string): void;
  /** Runs `work` holding the database's write lock; rolled back if it throws. */
  transaction<T>(work: () => T): T;
}
export const MarketplaceRegistry = token<MarketplaceRegistry>('plugins.marketplaceRegistry');

/** Where marketplace clones live: app-local data, never the owner's repository. */
export function marketplacesDir(dataDir: string): string {
  return path.join(dataDir, 'marketplaces');
}

@injectable()
export class SqliteMarketplaceRegistry implements MarketplaceRegistry {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Places) private readonly places: Places,
  ) {}

  list(): MarketplaceRow[] {
    const rows = this.db.prepare('SELECT name, url, ref, commit_id, added_at FROM marketplaces ORDER BY seq').all() as Row[];
    return rows.map((row) => this.toRow(row));
  }

  get(name: string): MarketplaceRow | undefined {
    const row = this.db.prepare('SELECT name, url, ref, commit_id, added_at FROM marketplaces WHERE name = ?').get(name) as Row | undefined;
    return row === undefined ? undefined : this.toRow(row);
  }

  add(row: { name: string; url: string; ref: string | null; commit: string }): void {
    writeTransaction(this.db, () => {
      this.db
        .prepare("INSERT INTO marketplaces (name, url, ref, commit_id, added_at) VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
        .run(row.name, row.url, row.ref, row.commit);
    });
  }

  setCommit(name: string, commit: string): void {
    writeTransaction(this.db, () => this.db.prepare('UPDATE marketplaces SET commit_id = ? WHERE name = ?').run(commit, name));
  }

  remove(name: string): void {
    writeTransaction(this.db, () => this.db.prepare('DELETE FROM marketplaces WHERE name = ?').run(name));
  }

  transaction<T>(work: () => T): T {
    return writeTransaction(this.db, work);
  }

  private toRow(row: Row): MarketplaceRow {
    return {
      name: row.name,
      // A row written before URLs were stored redacted may still hold a credential.
      url: redactCredentials(row.url),
      ref: row.ref,
      commit: row.commit_id,
      dir: path.join(marketplacesDir(this.places.dataDir), row.name),
      addedAt: row.added_at,
    };
  }
}
