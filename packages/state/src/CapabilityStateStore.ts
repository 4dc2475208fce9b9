import path from 'node:path';
import { Database, type Migration, writeTransaction } from '@loadout/db';
import { collisionKey, InvalidInputError, token } from '@loadout/kernel';
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
 * The surfaced substrate of capability state, in the app-local database. Keyed by identity
 * (kind + id, ids compared case-insensitively), never by path, so a document that moves keeps its
 * state when the mover carries it over.
 *
 * Every method runs in its own write transaction; {@link CapabilityStateStore.applySurfaced}
 * writes a whole batch in one.
 *
 * @example
 * // moving a global skill into a project: state follows the document
 * const shown = store.surfacedAt('skill', 'pdf', projectReal) ?? store.surfacedAt('skill', 'pdf', null);
 * store.forget('skill', 'pdf', { allProjects: true });
 * if (shown !== undefined) store.setSurfaced('skill', 'pdf', projectReal, shown);
 */
export interface CapabilityStateStore {
  /**
   * The value stored at exactly `scope` (null: the global default; else a project's real path),
   * or undefined when that scope holds none. Does not fall back from a project to the global value.
   */
  surfacedAt(kind: string, id: string, scope: string | null): boolean | undefined;
  /** The project override (when `project` is given) and the global default, in one read. */
  surfacedFor(kind: string, id: string, project: string | null): SurfacedValues;
  /**
   * Every stored value for the global scope and `project`, keyed `<kind>/<lower-cased id>`:
   * what a session filter needs, read once per session.
   */
  surfacedMap(project: string | null): ReadonlyMap<string, SurfacedValues>;
  /**
   * Stores the surfaced value at `scope` (null: the global default; else a project's real path)
   * for an owner's capability.
   */
  setSurfaced(kind: string, id: string, scope: string | null, value: boolean): void;
  /**
   * Stores every change in one transaction: all of them or none. `beforeCommit` runs inside that
   * transaction after the rows are written; if it throws, the rows are rolled back, so a file
   * write that must land with them can make the pair all-or-nothing.
   */
  applySurfaced(changes: readonly SurfacedChange[], beforeCommit?: () => void): void;
  /**
   * Drops stored state. `{ allProjects: true }` drops the global default and every project's
   * override (a global document that left); `{ allProjects: false }` drops only the global
   * default; `{ project }` drops only that project's override. Returns how many rows went.
   */
  forget(kind: string, id: string, options: ForgetOptions): number;
  /** Drops every row written while `plugin` provided the capability. Returns how many went. */
  forgetPlugin(plugin: string): number;
}
export const CapabilityStateStore = token<CapabilityStateStore>('state.store');

interface StateRow {
  kind: string;
  id: string;
  scope: string;
  surfaced: number;
}

/** The SQLite {@link CapabilityStateStore}. */
@injectable()
export class SqliteCapabilityStateStore implements CapabilityStateStore {
  constructor(@inject(Database) private readonly db: Database) {}

  surfacedAt(kind: string, id: string, scope: string | null): boolean | undefined {
    const row = this.db
      .prepare('SELECT surfaced FROM capability_state WHERE kind = ? AND id = ? AND scope = ?')
      .get(kind, collisionKey(id), scopeKey(scope)) as { surfaced: number } | undefined;
    return row === undefined ? undefined : row.surfaced === 1;
  }

  surfacedFor(kind: string, id: string, project: string | null): SurfacedValues {
    const rows = this.db
      .prepare('SELECT kind, id, scope, surfaced FROM capability_state WHERE kind = ? AND id = ? AND scope IN (?, ?)')
      .all(kind, collisionKey(id), GLOBAL_SCOPE, project === null ? GLOBAL_SCOPE : scopeKey(project)) as StateRow[];
    return valuesOf(rows, project);
  }

  surfacedMap(project: string | null): ReadonlyMap<string, SurfacedValues> {
    const rows = this.db
      .prepare('SELECT kind, id, scope, surfaced FROM capability_state WHERE scope IN (?, ?)')
      .all(GLOBAL_SCOPE, project === null ? GLOBAL_SCOPE : scopeKey(project)) as StateRow[];
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

  setSurfaced(kind: string, id: string, scope: string | null, value: boolean): void {
    this.applySurfaced([{ kind, id, scope, surfaced: value, plugin: null }]);
  }

  applySurfaced(changes: readonly SurfacedChange[], beforeCommit?: () => void): void {
    const rows = changes.map((change) => ({ ...change, scope: scopeKey(change.scope) }));
    const upsert = this.db.prepare(
      `INSERT INTO capability_state (kind, id, scope, surfaced, plugin, updated_at)
       VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))
       ON CONFLICT (kind, id, scope) DO UPDATE SET surfaced = excluded.surfaced, plugin = excluded.plugin, updated_at = excluded.updated_at`,
    );
    writeTransaction(this.db, () => {
      for (const row of rows) upsert.run(row.kind, collisionKey(row.id), row.scope, row.surfaced ? 1 : 0, row.plugin);
      beforeCommit?.();
    });
  }

  forget(kind: string, id: string, options: ForgetOptions): number {
    const key = collisionKey(id);
    return writeTransaction(this.db, () => {
      if ('project' in options) {
        return this.db.prepare('DELETE FROM capability_state WHERE kind = ? AND id = ? AND scope = ?').run(kind, key, scopeKey(options.project))
          .changes;
      }
      const sql = options.allProjects
        ? 'DELETE FROM capability_state WHERE kind = ? AND id = ?'
        : 'DELETE FROM capability_state WHERE kind = ? AND id = ? AND scope = ?';
      const statement = this.db.prepare(sql);
      return (options.allProjects ? statement.run(kind, key) : statement.run(kind, key, GLOBAL_SCOPE)).changes;
    });
  }

  forgetPlugin(plugin: string): number {
    return writeTransaction(this.db, () => this.db.prepare('DELETE FROM capability_state WHERE plugin = ?').run(plugin).changes);
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
