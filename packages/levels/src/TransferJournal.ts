import type { Migration, PostgresMigration, SqlClient, SqlDatabase } from '@loadout/db';

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

/**
 * A move names the data folder (and host) of the process that made it: on a database several
 * servers share, each recovers only the moves of the files on its own disk. Rows written before
 * have an empty place and belong to the one data folder that had them.
 */
export const transferPlaceMigration: Migration = {
  id: 'levels/002-transfer-place',
  sql: "ALTER TABLE level_transfers ADD COLUMN place TEXT NOT NULL DEFAULT '';",
};

/** The same table on PostgreSQL. */
export const transferJournalPostgresMigration: PostgresMigration = {
  id: 'levels/pg-001-transfer-journal',
  sql: `CREATE TABLE level_transfers (
    id TEXT PRIMARY KEY,
    plan TEXT NOT NULL,
    state_moved INTEGER NOT NULL DEFAULT 0 CHECK (state_moved IN (0, 1)),
    started_at TEXT NOT NULL,
    place TEXT NOT NULL DEFAULT ''
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

/** The moves in progress of one data folder, in Loadout's database. */
export class TransferJournal {
  /**
   * @param place the host and data folder whose files the moves touch, e.g. `host:/home/me/.loadout`
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly place: string,
  ) {}

  async begin(id: string, plan: JournalPlan): Promise<void> {
    await this.db.run('INSERT INTO level_transfers (id, plan, started_at, place) VALUES (?, ?, ?, ?)', [
      id,
      JSON.stringify(plan),
      new Date().toISOString(),
      this.place,
    ]);
  }

  /** Call inside the transaction that carries the state. */
  async markStateMoved(id: string, tx: SqlClient): Promise<void> {
    await tx.run('UPDATE level_transfers SET state_moved = 1 WHERE id = ?', [id]);
  }

  async finish(id: string): Promise<void> {
    await this.db.run('DELETE FROM level_transfers WHERE id = ?', [id]);
  }

  async list(): Promise<JournalEntry[]> {
    const rows = await this.db.query<{ id: string; plan: string; state_moved: number }>(
      "SELECT id, plan, state_moved FROM level_transfers WHERE place = ? OR place = '' ORDER BY started_at",
      [this.place],
    );
    return rows.map((row) => ({ id: row.id, plan: JSON.parse(row.plan) as JournalPlan, stateMoved: row.state_moved === 1 }));
  }
}
