import { Database, type Migration, writeTransaction } from '@loadout/db';
import { inject, injectable } from 'tsyringe';
import type { PluginApproval, TrustedProject, TrustStore } from './TrustStore.js';

/**
 * Trusted projects by real path; per plugin, the approved commit and one fingerprint per runnable
 * capability (`key` is `<kind>/<lower-cased id>`). A plugin's rows go when it is uninstalled.
 */
export const trustMigration: Migration = {
  id: 'trust/001-trust',
  sql: `CREATE TABLE trusted_projects (
    path TEXT PRIMARY KEY,
    trusted_at TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE plugin_approvals (
    plugin TEXT PRIMARY KEY,
    commit_id TEXT NOT NULL,
    approved_at TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE plugin_approved_parts (
    plugin TEXT NOT NULL REFERENCES plugin_approvals (plugin) ON DELETE CASCADE,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (plugin, key)
  ) WITHOUT ROWID;`,
};

/** The {@link TrustStore} in the app-local SQLite database. */
@injectable()
export class SqliteTrustStore implements TrustStore {
  constructor(@inject(Database) private readonly db: Database) {}

  isProjectTrusted(project: string): boolean {
    return this.db.prepare('SELECT 1 FROM trusted_projects WHERE path = ?').get(project) !== undefined;
  }

  trustProject(project: string): TrustedProject {
    return writeTransaction(this.db, () => {
      this.db.prepare('INSERT INTO trusted_projects (path, trusted_at) VALUES (?, ?) ON CONFLICT (path) DO NOTHING').run(project, new Date().toISOString());
      const row = this.db.prepare('SELECT path, trusted_at AS trustedAt FROM trusted_projects WHERE path = ?').get(project) as TrustedProject;
      return { path: row.path, trustedAt: row.trustedAt };
    });
  }

  untrustProject(project: string): boolean {
    return writeTransaction(this.db, () => this.db.prepare('DELETE FROM trusted_projects WHERE path = ?').run(project).changes > 0);
  }

  listTrustedProjects(): TrustedProject[] {
    return (this.db.prepare('SELECT path, trusted_at AS trustedAt FROM trusted_projects ORDER BY path').all() as TrustedProject[]).map((row) => ({
      path: row.path,
      trustedAt: row.trustedAt,
    }));
  }

  approvalOf(plugin: string): PluginApproval | null {
    const row = this.db.prepare('SELECT commit_id AS commitId, approved_at AS approvedAt FROM plugin_approvals WHERE plugin = ?').get(plugin) as
      | { commitId: string; approvedAt: string }
      | undefined;
    if (row === undefined) return null;
    const parts = this.db.prepare('SELECT key, fingerprint FROM plugin_approved_parts WHERE plugin = ? ORDER BY key').all(plugin) as { key: string; fingerprint: string }[];
    return { plugin, commit: row.commitId, approvedAt: row.approvedAt, fingerprints: new Map(parts.map((part) => [part.key, part.fingerprint])) };
  }

  approvePlugin(plugin: string, commit: string, fingerprints: ReadonlyMap<string, string>): PluginApproval {
    const approvedAt = new Date().toISOString();
    writeTransaction(this.db, () => {
      this.db.prepare('DELETE FROM plugin_approvals WHERE plugin = ?').run(plugin);
      this.db.prepare('INSERT INTO plugin_approvals (plugin, commit_id, approved_at) VALUES (?, ?, ?)').run(plugin, commit, approvedAt);
      const insert = this.db.prepare('INSERT INTO plugin_approved_parts (plugin, key, fingerprint) VALUES (?, ?, ?)');
      for (const [key, fingerprint] of fingerprints) insert.run(plugin, key, fingerprint);
    });
    return { plugin, commit, approvedAt, fingerprints: new Map(fingerprints) };
  }

  forgetPlugin(plugin: string): void {
    writeTransaction(this.db, () => {
      this.db.prepare('DELETE FROM plugin_approvals WHERE plugin = ?').run(plugin);
    });
  }
}
