import type { Database, Migration } from '@loadout/db';

/**
 * One row per move in progress. It is written before anything is touched and deleted when the
 * move is whole; `state_moved` flips in the same transaction that carries the state, so after a
 * crash the row says on which side of that commit point the move stopped.
 */
export const transferJournalMigration: Migration = {
  id: 'levels/001-transfer-journal',
  sql: `CREATE TABLE level_transfers (
    id TEXT PRIMARY KEY,
    plan TEXT NOT NULL,
    state_moved INTEGER NOT NULL DEFAULT 0 CHECK (state_moved IN (0, 1)),
    started_at TEXT NOT NULL
  );`,
};

/** What a recovery needs to undo or finish a move. Paths are absolute. */
export interface JournalPlan {
  readonly kind: string;
  readonly label: string;
  readonly sourceEntry: string;
  readonly destEntry: string;
  readonly gates: {
    readonly values: readonly (readonly [string, boolean])[];
    readonly sourceHasEntry: boolean;
    readonly ids: { readonly from: string; readonly to: string };
    readonly roots: { readonly from: string; readonly to: string };
  };
  /**
   * The surfaced switch the move carries: the scopes it leaves and lands in (a project's real
   * path, or null for the global default) and the value. Absent in rows written before it was
   * recorded; a recovery then cannot give the switch back.
   */
  readonly state?: { readonly from: string | null; readonly to: string | null; readonly surfaced: boolean };
}

export interface JournalEntry {
  readonly id: string;
  readonly plan: JournalPlan;
  readonly stateMoved: boolean;
}

/** The moves in progress, in the app-local database. */
export class TransferJournal {
  constructor(private readonly db: Database) {}

  begin(id: string, plan: JournalPlan): void {
    this.db
      .prepare("INSERT INTO level_transfers (id, plan, started_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
      .run(id, JSON.stringify(plan));
  }

  /** Call inside the transaction that carries the state. */
  markStateMoved(id: string): void {
    this.db.prepare('UPDATE level_transfers SET state_moved = 1 WHERE id = ?').run(id);
  }

  finish(id: string): void {
    this.db.prepare('DELETE FROM level_transfers WHERE id = ?').run(id);
  }

  list(): JournalEntry[] {
    const rows = this.db.prepare('SELECT id, plan, state_moved FROM level_transfers ORDER BY started_at').all() as {
      id: string;
      plan: string;
      state_moved: number;
    }[];
    return rows.map((row) => ({ id: row.id, plan: JSON.parse(row.plan) as JournalPlan, stateMoved: row.state_moved === 1 }));
  }
}
