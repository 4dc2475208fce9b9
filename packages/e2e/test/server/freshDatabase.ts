import { TEST_DATABASE_URL } from '@loadout/db/testing';
import pg from 'pg';

// A database of its own on the test PostgreSQL for each test that starts servers on it: the
// servers share it, and nothing one test queued reaches another.

const made: string[] = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database on the test server; {@link dropFreshDatabases} drops it after the test. */
export async function freshDatabase(): Promise<string> {
  const name = `servers_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin(`CREATE DATABASE ${name}`);
  made.push(name);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops every database {@link freshDatabase} made, even while a server still holds it. */
export async function dropFreshDatabases(): Promise<void> {
  for (const name of made.splice(0)) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
