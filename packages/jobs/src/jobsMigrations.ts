import type { Migration } from '@loadout/db';

/**
 * The job queue. A job stores the task's `dirName`, never a path, so a task keeps its identity
 * across roots and is resolved again through `getTaskByDirName` when it runs. A pipeline step
 * waits (`waiting`) until the step before it succeeds; `input` is NULL until then when the step
 * takes the previous step's output.
 */
const jobs: Migration = {
  id: 'server/001-pipeline-jobs',
  sql: `
    CREATE TABLE pipelines (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project TEXT,
      created_at TEXT NOT NULL
    );
    CREATE TABLE pipeline_jobs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      task_dir_name TEXT NOT NULL,
      input TEXT,
      input_from_previous INTEGER NOT NULL DEFAULT 0 CHECK (input_from_previous IN (0, 1)),
      project TEXT,
      status TEXT NOT NULL CHECK (status IN ('waiting', 'queued', 'running', 'succeeded', 'failed', 'skipped')),
      exit_code INTEGER,
      output TEXT NOT NULL DEFAULT '',
      stderr TEXT NOT NULL DEFAULT '',
      error TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      max_attempts INTEGER NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
      run_after INTEGER NOT NULL DEFAULT 0,
      claimed_by TEXT,
      heartbeat INTEGER,
      pid INTEGER,
      pid_start TEXT,
      pipeline_id INTEGER REFERENCES pipelines (id),
      step INTEGER,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      UNIQUE (pipeline_id, step)
    );
    CREATE INDEX pipeline_jobs_claim ON pipeline_jobs (status, run_after, id);
  `,
};

/** The notification inbox: every event the runner (or anyone) emitted through a declared catalogue. */
const inbox: Migration = {
  id: 'server/002-notification-inbox',
  sql: `
    CREATE TABLE notification_inbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      notification TEXT NOT NULL,
      catalogue TEXT NOT NULL,
      plugin TEXT,
      title TEXT NOT NULL,
      severity TEXT NOT NULL,
      message TEXT NOT NULL,
      data TEXT NOT NULL DEFAULT '{}',
      read INTEGER NOT NULL DEFAULT 0 CHECK (read IN (0, 1)),
      created_at TEXT NOT NULL
    );
  `,
};

/** The job queue's and the inbox's schema changes, in order. Their ids keep the `server/` prefix they shipped with: a database records ids it already applied. */
export const jobsMigrations: readonly Migration[] = [jobs, inbox];
