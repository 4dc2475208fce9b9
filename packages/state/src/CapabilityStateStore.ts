import path from 'node:path';
import { type Migration, type PostgresMigration, type SqlClient, SqlDatabase } from '@loadout/db';
import { collisionKey, token } from '@loadout/kernel';
import { InvalidInputError } from '@loadout/files';
import { inject, injectable } from 'tsyringe';

/**
 * The surfaced switch, one row per capability identity and scope. The id is stored lower-cased so
 * `PDF` and `pdf` are one capability, as everywhere else; `scope` is `''` for the global default
 * or a project's real path; `plugin` remembers who provided the capability when the row was
 * written, so uninstalling that plugin can forget it even after its clone is gone.
 */
export const capabilityStateMigration: Migration = {
  id: 'state/001-capability-state',
  sql: `CREATE TABLE capability_state (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    scope TEXT NOT NULL,
    surfaced INTEGER NOT NULL CHECK (surfaced IN (0, 1)),
    plugin TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, id, scope)
  ) WITHOUT ROWID;
  CREATE INDEX capability_state_by_plugin ON capability_state (plugin) WHERE plugin IS NOT NULL;`,
};

/** The same table on PostgreSQL. */
export const capabilityStatePostgresMigration: PostgresMigration = {
  id: 'state/pg-001-capability-state',
  sql: `CREATE TABLE capability_state (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    scope TEXT NOT NULL,
    surfaced INTEGER NOT NULL CHECK (surfaced IN (0, 1)),
    plugin TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, id, scope)
  );
  CREATE INDEX capability_state_by_plugin ON capability_state (plugin) WHERE plugin IS NOT NULL;`,
};

/** The scope key the global default is stored under. */
const GLOBAL_SCOPE = '';

/** One surfaced value to store. */
export interface SurfacedChange {
  readonly kind: string;
  readonly id: string;
  /** Null for the global default, else a project's real path. */
  readonly scope: string | null;
  readonly surfaced: boolean;
  /** The plugin providing the capability, or null for the owner's own. */
  readonly plugin: string | null;
}

/** The stored surfaced values that can decide a capability in one scope. */
export interface SurfacedValues {
  /** The project's override, if the scope has a project and it holds one. */
  readonly project: boolean | undefined;
  readonly global: boolean | undefined;
}

/** What to forget: the global default and every project's override, or one project's override. */
export type ForgetOptions = { readonly allProjects: boolean } | { readonly project: string };

/**
 * The surfaced substrate of capability state, in Loadout's database (the SQLite file, or the
 * PostgreSQL database several servers share, so a switch made through one is seen by all). Keyed
 * by identity (kind + id, ids compared case-insensitively), never by path, so a document that
 * moves keeps its state when the mover carries it over.
 *
 * Every method runs in its own write transaction, or in `tx` when one is given (a caller that
 * must land other rows with it); {@link CapabilityStateStore.applySurfaced} writes a whole batch
 * in one.
 *
 * @example
 * // moving a global skill into a project: state follows the document, in one transaction
 * await db.transaction(async (tx) => {
 *   const shown = (await store.surfacedAt('skill', 'pdf', projectReal, tx)) ?? (await store.surfacedAt('skill', 'pdf', null, tx));
 *   await store.forget('skill', 'pdf', { allProjects: true }, tx);
 *   if (shown !== undefined) await store.setSurfaced('skill', 'pdf', projectReal, shown, tx);
 * });
 */
export interface CapabilityStateStore {
  /**
   * The value stored at exactly `scope` (null: the global default; else a project's real path),
   * or undefined when that scope holds none. Does not fall back from a project to the global value.
   */
  surfacedAt(kind: string, id: string, scope: string | null, tx?: SqlClient): Promise<boolean | undefined>;
  /** The project override (when `project` is given) and the global default, in one read. */
  surfacedFor(kind: string, id: string, project: string | null): Promise<SurfacedValues>;
  /**
   * Every stored value for the global scope and `project`, keyed `<kind>/<lower-cased id>`:
   * what a session filter needs, read once per session.
   */
  surfacedMap(project: string | null): Promise<ReadonlyMap<string, SurfacedValues>>;
  /**
   * Stores the surfaced value at `scope` (null: the global default; else a project's real path)
   * for an owner's capability.
   */
  setSurfaced(kind: string, id: string, scope: string | null, value: boolean, tx?: SqlClient): Promise<void>;
  /**
   * Stores every change in one transaction: all of them or none. `beforeCommit` runs inside that
   * transaction after the rows are written; if it throws, the rows are rolled back, so a file
   * write that must land with them can make the pair all-or-nothing.
   */
  applySurfaced(changes: readonly SurfacedChange[], beforeCommit?: () => void): Promise<void>;
  /**
   * Drops stored state. `{ allProjects: true }` drops the global default and every project's
   * override (a global document that left); `{ allProjects: false }` drops only the global
   * default; `{ project }` drops only that project's override. Returns how many rows went.
   */
  forget(kind: string, id: string, options: ForgetOptions, tx?: SqlClient): Promise<number>;
  /** Drops every row written while `plugin` provided the capability. Returns how many went. */
  forgetPlugin(plugin: string): Promise<number>;
}
export const CapabilityStateStore = token<CapabilityStateStore>('state.store');

interface StateRow {
  kind: string;
  id: string;
  scope: string;
  surfaced: number;
}

/** The {@link CapabilityStateStore} on whichever engine {@link SqlDatabase} is. */
@injectable()
export class SqlCapabilityStateStore implements CapabilityStateStore {
  constructor(@inject(SqlDatabase) private readonly db: SqlDatabase) {}

  async surfacedAt(kind: string, id: string, scope: string | null, tx: SqlClient = this.db): Promise<boolean | undefined> {
    const row = await tx.queryOne<{ surfaced: number }>('SELECT surfaced FROM capability_state WHERE kind = ? AND id = ? AND scope = ?', [
      kind,
      collisionKey(id),
      scopeKey(scope),
    ]);
    return row === undefined ? undefined : row.surfaced === 1;
  }

  async surfacedFor(kind: string, id: string, project: string | null): Promise<SurfacedValues> {
    const rows = await this.db.query<StateRow>(
      'SELECT kind, id, scope, surfaced FROM capability_state WHERE kind = ? AND id = ? AND scope IN (?, ?)',
      [kind, collisionKey(id), GLOBAL_SCOPE, project === null ? GLOBAL_SCOPE : scopeKey(project)],
    );
    return valuesOf(rows, project);
  }

  async surfacedMap(project: string | null): Promise<ReadonlyMap<string, SurfacedValues>> {
    const rows = await this.db.query<StateRow>('SELECT kind, id, scope, surfaced FROM capability_state WHERE scope IN (?, ?)', [
      GLOBAL_SCOPE,
      project === null ? GLOBAL_SCOPE : scopeKey(project),
    ]);
    const grouped = new Map<string, StateRow[]>();
    for (const row of rows) {
      const key = `${row.kind}/${row.id}`;
      const list = grouped.get(key);
      if (list === undefined) grouped.set(key, [row]);
      else list.push(row);
    }
    const map = new Map<string, SurfacedValues>();
    for (const [key, list] of grouped) map.set(key, valuesOf(list, project));
    return map;
  }

  async setSurfaced(kind: string, id: string, scope: string | null, value: boolean, tx?: SqlClient): Promise<void> {
    const change = [{ kind, id, scope, surfaced: value, plugin: null }];
    if (tx === undefined) await this.applySurfaced(change);
    else await this.upsert(tx, change);
  }

  async applySurfaced(changes: readonly SurfacedChange[], beforeCommit?: () => void): Promise<void> {
    // Every scope is checked before the transaction opens: a bad one changes nothing.
    for (const change of changes) scopeKey(change.scope);
    await this.db.transaction(async (tx) => {
      await this.upsert(tx, changes);
      beforeCommit?.();
    });
  }

  async forget(kind: string, id: string, options: ForgetOptions, tx?: SqlClient): Promise<number> {
    const key = collisionKey(id);
    const [sql, params] =
      'project' in options
        ? ['DELETE FROM capability_state WHERE kind = ? AND id = ? AND scope = ?', [kind, key, scopeKey(options.project)]]
        : options.allProjects
          ? ['DELETE FROM capability_state WHERE kind = ? AND id = ?', [kind, key]]
          : ['DELETE FROM capability_state WHERE kind = ? AND id = ? AND scope = ?', [kind, key, GLOBAL_SCOPE]];
    return tx === undefined ? this.db.transaction((own) => this.deleted(own, sql, params)) : this.deleted(tx, sql, params);
  }

  forgetPlugin(plugin: string): Promise<number> {
    return this.db.transaction((tx) => this.deleted(tx, 'DELETE FROM capability_state WHERE plugin = ?', [plugin]));
  }

  /** Writes the rows and marks the change, so every server's sessions see it. */
  private async upsert(tx: SqlClient, changes: readonly SurfacedChange[]): Promise<void> {
    for (const change of changes) {
      await tx.run(
        `INSERT INTO capability_state (kind, id, scope, surfaced, plugin, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (kind, id, scope) DO UPDATE SET surfaced = excluded.surfaced, plugin = excluded.plugin, updated_at = excluded.updated_at`,
        [change.kind, collisionKey(change.id), scopeKey(change.scope), change.surfaced ? 1 : 0, change.plugin, new Date().toISOString()],
      );
    }
    if (changes.length > 0) await this.db.sessionChanged(tx);
  }

  /** Deletes rows; when any went, marks the change. */
  private async deleted(tx: SqlClient, sql: string, params: readonly unknown[]): Promise<number> {
    const count = await tx.run(sql, params);
    if (count > 0) await this.db.sessionChanged(tx);
    return count;
  }
}

/**
 * The stored key of a scope. A project is stored by its real path, which callers resolve; an
 * empty or relative path would silently become another scope, so it is refused.
 */
function scopeKey(scope: string | null): string {
  if (scope === null) return GLOBAL_SCOPE;
  if (scope === '' || !path.isAbsolute(scope)) {
    throw new InvalidInputError('STATE_SCOPE_INVALID', `a project scope must be an absolute real path, got "${scope.slice(0, 200)}"`);
  }
  return scope;
}

function valuesOf(rows: readonly StateRow[], project: string | null): SurfacedValues {
  let global: boolean | undefined;
  let projectValue: boolean | undefined;
  for (const row of rows) {
    if (row.scope === GLOBAL_SCOPE) global = row.surfaced === 1;
    else if (project !== null && row.scope === project) projectValue = row.surfaced === 1;
  }
  return { project: projectValue, global };
}
