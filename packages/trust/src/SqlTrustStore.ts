import { type Migration, type PostgresMigration, type SqlClient, SqlDatabase } from '@loadout/db';
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

/** The same tables on PostgreSQL. */
export const trustPostgresMigration: PostgresMigration = {
  id: 'trust/pg-001-trust',
  sql: `CREATE TABLE trusted_projects (
    path TEXT PRIMARY KEY,
    trusted_at TEXT NOT NULL
  );
  CREATE TABLE plugin_approvals (
    plugin TEXT PRIMARY KEY,
    commit_id TEXT NOT NULL,
    approved_at TEXT NOT NULL
  );
  CREATE TABLE plugin_approved_parts (
    plugin TEXT NOT NULL REFERENCES plugin_approvals (plugin) ON DELETE CASCADE,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (plugin, key)
  );`,
};

/** The {@link TrustStore} on whichever engine {@link SqlDatabase} is. */
@injectable()
export class SqlTrustStore implements TrustStore {
  constructor(@inject(SqlDatabase) private readonly db: SqlDatabase) {}

  async isProjectTrusted(project: string): Promise<boolean> {
    return (await this.db.queryOne('SELECT 1 AS trusted FROM trusted_projects WHERE path = ?', [project])) !== undefined;
  }

  trustProject(project: string): Promise<TrustedProject> {
    return this.db.transaction(async (tx) => {
      const added = await tx.run('INSERT INTO trusted_projects (path, trusted_at) VALUES (?, ?) ON CONFLICT (path) DO NOTHING', [
        project,
        new Date().toISOString(),
      ]);
      if (added > 0) await this.db.sessionChanged(tx);
      const row = (await tx.queryOne<TrustedProject>('SELECT path, trusted_at AS "trustedAt" FROM trusted_projects WHERE path = ?', [
        project,
      ])) as TrustedProject;
      return { path: row.path, trustedAt: row.trustedAt };
    });
  }

  untrustProject(project: string): Promise<boolean> {
    return this.db.transaction(async (tx) => this.changed(tx, await tx.run('DELETE FROM trusted_projects WHERE path = ?', [project])));
  }

  async listTrustedProjects(): Promise<TrustedProject[]> {
    const rows = await this.db.query<TrustedProject>('SELECT path, trusted_at AS "trustedAt" FROM trusted_projects ORDER BY path');
    return rows.map((row) => ({ path: row.path, trustedAt: row.trustedAt }));
  }

  async approvalOf(plugin: string): Promise<PluginApproval | null> {
    return (await this.approvalsOf([plugin])).get(plugin) ?? null;
  }

  async approvalsOf(plugins: readonly string[]): Promise<ReadonlyMap<string, PluginApproval>> {
    const names = [...new Set(plugins)];
    if (names.length === 0) return new Map();
    // One statement, so an approval replaced meanwhile is never read half old, half new.
    const rows = await this.db.query<{
      plugin: string;
      commitId: string;
      approvedAt: string;
      key: string | null;
      fingerprint: string | null;
    }>(
      `SELECT a.plugin, a.commit_id AS "commitId", a.approved_at AS "approvedAt", p.key, p.fingerprint
       FROM plugin_approvals a LEFT JOIN plugin_approved_parts p ON p.plugin = a.plugin
       WHERE a.plugin IN (${names.map(() => '?').join(', ')}) ORDER BY a.plugin, p.key`,
      names,
    );
    const approvals = new Map<string, PluginApproval & { fingerprints: Map<string, string> }>();
    for (const row of rows) {
      let approval = approvals.get(row.plugin);
      if (approval === undefined) {
        approval = { plugin: row.plugin, commit: row.commitId, approvedAt: row.approvedAt, fingerprints: new Map() };
        approvals.set(row.plugin, approval);
      }
      if (row.key !== null && row.fingerprint !== null) approval.fingerprints.set(row.key, row.fingerprint);
    }
    return approvals;
  }

  async approvePlugin(plugin: string, commit: string, fingerprints: ReadonlyMap<string, string>): Promise<PluginApproval> {
    const approvedAt = new Date().toISOString();
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM plugin_approvals WHERE plugin = ?', [plugin]);
      await tx.run('INSERT INTO plugin_approvals (plugin, commit_id, approved_at) VALUES (?, ?, ?)', [plugin, commit, approvedAt]);
      for (const [key, fingerprint] of fingerprints)
        await tx.run('INSERT INTO plugin_approved_parts (plugin, key, fingerprint) VALUES (?, ?, ?)', [plugin, key, fingerprint]);
      await this.db.sessionChanged(tx);
    });
    return { plugin, commit, approvedAt, fingerprints: new Map(fingerprints) };
  }

  async forgetPlugin(plugin: string): Promise<void> {
    await this.db.transaction(async (tx) => this.changed(tx, await tx.run('DELETE FROM plugin_approvals WHERE plugin = ?', [plugin])));
  }

  /** True when rows went; then the change is marked, so every server's sessions see it. */
  private async changed(tx: SqlClient, count: number): Promise<boolean> {
    if (count > 0) await this.db.sessionChanged(tx);
    return count > 0;
  }
}
