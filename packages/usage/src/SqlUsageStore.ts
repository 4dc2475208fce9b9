import { type Migration, type PostgresMigration, SqlDatabase } from '@loadout/db';
import { inject, injectable } from 'tsyringe';
import type { SessionCount, UsageEvent, UsageFilter, UsageKind, UsageStore, UsageTally } from './UsageStore.js';

// One row per use. The ledger's counts are sums over a window the reader chooses (`--since`), so
// events are kept as they came, not folded into counters, and pruned by age. A project, a server
// and a session that are not known are stored as '' (not NULL) so that they group and compare the
// same way on both engines.

/** The ledger's table and the index its window and pruning read, with the engine's own id column. */
function eventsTable(idColumn: string, timeType: string): string {
  return `CREATE TABLE usage_events (
    id ${idColumn},
    at ${timeType} NOT NULL,
    runtime TEXT NOT NULL,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    server TEXT NOT NULL,
    event TEXT NOT NULL,
    session TEXT NOT NULL,
    source TEXT NOT NULL
  );
  CREATE INDEX usage_events_at ON usage_events (at);`;
}

/** The ledger's table on SQLite. */
export const usageMigration: Migration = { id: 'usage/001-events', sql: eventsTable('INTEGER PRIMARY KEY AUTOINCREMENT', 'INTEGER') };

/** The same table on PostgreSQL. */
export const usagePostgresMigration: PostgresMigration = { id: 'usage/pg-001-events', sql: eventsTable('BIGSERIAL PRIMARY KEY', 'BIGINT') };

/** Rows per INSERT: well under SQLite's 32,766 parameters and PostgreSQL's 65,535. */
const ROWS_PER_INSERT = 200;
const COLUMNS = 'at, runtime, project, kind, name, server, event, session, source';

interface TallyRow {
  runtime: string;
  project: string;
  kind: UsageKind;
  name: string;
  server: string;
  invoked: number | string;
  failed: number | string;
  lastUsed: number | string;
  sessions: number | string;
}

/** The {@link UsageStore} on whichever engine {@link SqlDatabase} is. */
@injectable()
export class SqlUsageStore implements UsageStore {
  constructor(@inject(SqlDatabase) private readonly db: SqlDatabase) {}

  async record(events: readonly UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let at = 0; at < events.length; at += ROWS_PER_INSERT) {
        const batch = events.slice(at, at + ROWS_PER_INSERT);
        await tx.run(
          `INSERT INTO usage_events (${COLUMNS}) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          batch.flatMap((event) => [
            event.at,
            event.runtime,
            event.project ?? '',
            event.kind,
            event.name,
            event.server ?? '',
            event.event,
            event.session ?? '',
            event.source,
          ]),
        );
      }
    });
  }

  async tally(filter: UsageFilter): Promise<UsageTally[]> {
    const { where, params } = whereOf(filter);
    const rows = await this.db.query<TallyRow>(
      `SELECT runtime, project, kind, name, server,
         COUNT(*) AS invoked,
         SUM(CASE WHEN event = 'failed' THEN 1 ELSE 0 END) AS failed,
         MAX(at) AS "lastUsed",
         COUNT(DISTINCT NULLIF(session, '')) AS sessions
       FROM usage_events WHERE ${where}
       GROUP BY runtime, project, kind, name, server
       ORDER BY invoked DESC, "lastUsed" DESC, kind, name, runtime, project, server`,
      params,
    );
    return rows.map((row) => ({
      runtime: row.runtime,
      project: row.project === '' ? null : row.project,
      kind: row.kind,
      name: row.name,
      server: row.server === '' ? null : row.server,
      invoked: Number(row.invoked),
      failed: Number(row.failed),
      lastUsed: Number(row.lastUsed),
      sessions: Number(row.sessions),
    }));
  }

  async sessionCounts(filter: UsageFilter): Promise<SessionCount[]> {
    const { where, params } = whereOf(filter);
    const rows = await this.db.query<{ runtime: string; project: string; sessions: number | string }>(
      `SELECT runtime, project, COUNT(DISTINCT session) AS sessions
       FROM usage_events WHERE ${where} AND session <> ''
       GROUP BY runtime, project ORDER BY runtime, project`,
      params,
    );
    return rows.map((row) => ({ runtime: row.runtime, project: row.project === '' ? null : row.project, sessions: Number(row.sessions) }));
  }

  prune(before: number): Promise<number> {
    return this.db.run('DELETE FROM usage_events WHERE at < ?', [before]);
  }
}

/** The WHERE clause of a filter: the window always, the runtime(s), project and kind when the filter names them. */
function whereOf(filter: UsageFilter): { where: string; params: unknown[] } {
  const clauses = ['at >= ?'];
  const params: unknown[] = [filter.since];
  if (filter.runtime !== undefined) {
    clauses.push('runtime = ?');
    params.push(filter.runtime);
  }
  if (filter.kind !== undefined) {
    clauses.push('kind = ?');
    params.push(filter.kind);
  }
  if (filter.runtimes !== undefined) {
    // No runtime named: no row, on both engines (an empty IN () is not SQL).
    clauses.push(filter.runtimes.length === 0 ? '1 = 0' : `runtime IN (${filter.runtimes.map(() => '?').join(', ')})`);
    params.push(...filter.runtimes);
  }
  if (filter.project !== undefined) {
    clauses.push('project = ?');
    params.push(filter.project ?? '');
  }
  return { where: clauses.join(' AND '), params };
}
