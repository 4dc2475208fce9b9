import fs from 'node:fs';
import path from 'node:path';
import { sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestSpool } from './SpoolIngest.js';
import { SqlUsageStore, usageMigration, usagePostgresMigration } from './SqlUsageStore.js';
import { BatchedUsageRecorder, FLUSH_BATCH } from './UsageRecorder.js';
import { USAGE_SPOOL_FOLDER, usageSpoolLineSchema } from './usageSpoolLine.js';

const sqlite = sqlBackends.find((backend) => backend.name === 'sqlite');
let opened: TestSqlDatabase;
let store: SqlUsageStore;
let spool: string;

const line = (fields: Record<string, unknown>): string =>
  JSON.stringify({
    v: 1,
    at: '2026-12-05T14:00:00.000Z',
    runtime: 'claude-code',
    project: '/work/app',
    kind: 'skill',
    name: 'pdf',
    event: 'invoked',
    session: 's1',
    ...fields,
  });

beforeEach(async () => {
  opened = await (sqlite as NonNullable<typeof sqlite>).open([usageMigration], [usagePostgresMigration]);
  store = new SqlUsageStore(opened.db);
  spool = path.join(testdir({}), USAGE_SPOOL_FOLDER);
  fs.mkdirSync(spool, { recursive: true });
});
afterEach(async () => {
  await opened.close();
  removeTestdirs();
});

describe('ingestSpool: the hook spool taken into the ledger', () => {
  it('takes every .jsonl file once: valid lines stored, invalid counted, absurd ones dropped, the files deleted', async () => {
    fs.writeFileSync(
      path.join(spool, 'claude-code-1.jsonl'),
      [
        line({}),
        line({ kind: 'tool', name: 'search', server: 'github', event: 'failed' }),
        'not json at all',
        line({ v: 2 }),
        line({ kind: 'rm -rf /' }),
        line({ name: 'x'.repeat(300) }),
        line({ project: '/work/\u0007bell' }),
        line({ name: 'evil\nname' }),
        line({ project: 'relative/path' }),
        line({ pad: 'y'.repeat(5000) }),
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(spool, 'codex.jsonl'), `${line({ runtime: 'codex', project: null, session: undefined })}\n`);
    fs.writeFileSync(path.join(spool, 'notes.txt'), line({ name: 'ignored' }));
    const report = await ingestSpool(spool, store);
    expect(report).toMatchObject({ files: 2, recorded: 3, invalid: 4, dropped: 4 });
    expect(report.problems).toContain('claude-code-1.jsonl:3: not JSON');
    expect(report.problems.some((problem) => problem.startsWith('claude-code-1.jsonl:6: name:'))).toBe(true);
    expect(fs.readdirSync(spool)).toEqual(['notes.txt']);
    const tallies = await store.tally({ since: 0 });
    expect(tallies.map((t) => [t.runtime, t.project, t.kind, t.name, t.server, t.invoked, t.failed])).toEqual([
      ['claude-code', '/work/app', 'skill', 'pdf', null, 1, 0],
      ['codex', null, 'skill', 'pdf', null, 1, 0],
      ['claude-code', '/work/app', 'tool', 'search', 'github', 1, 1],
    ]);

    // Taken once: a second ingest finds nothing, and the ledger is unchanged.
    expect(await ingestSpool(spool, store)).toMatchObject({ files: 0, recorded: 0 });
    expect((await store.tally({ since: 0 })).reduce((sum, t) => sum + t.invoked, 0)).toBe(3);
  });

  it('passes over links and folders, reads none of them, and a missing spool is nothing to do', async () => {
    fs.writeFileSync(path.join(spool, '..', 'outside.jsonl'), `${line({})}\n`);
    fs.symlinkSync(path.join(spool, '..', 'outside.jsonl'), path.join(spool, 'link.jsonl'));
    fs.mkdirSync(path.join(spool, 'folder.jsonl'));
    const report = await ingestSpool(spool, store);
    expect(report).toMatchObject({ files: 0, recorded: 0 });
    expect(report.problems).toEqual(['folder.jsonl: not a regular file; passed over', 'link.jsonl: not a regular file; passed over']);
    expect(fs.existsSync(path.join(spool, '..', 'outside.jsonl'))).toBe(true);
    expect(await ingestSpool(path.join(spool, 'absent'), store)).toMatchObject({ files: 0 });
  });

  it('puts a file back under a new spool name when the ledger cannot store it, so nothing is lost', async () => {
    fs.writeFileSync(path.join(spool, 'a.jsonl'), `${line({})}\n`);
    await opened.close();
    await expect(ingestSpool(spool, store)).rejects.toThrow();
    const left = fs.readdirSync(spool);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^retry-[0-9a-f]+\.jsonl$/);
    opened = await (sqlite as NonNullable<typeof sqlite>).open([usageMigration], [usagePostgresMigration]);
  });

  it('takes in the part of an oversized file it reads, and says so', async () => {
    const one = `${line({})}\n`;
    fs.writeFileSync(path.join(spool, 'big.jsonl'), one.repeat(100));
    // Room for 10 whole lines and part of the 11th, which is cut and so not JSON.
    const report = await ingestSpool(spool, store, { maxFileBytes: one.length * 10 + 20 });
    expect(report).toMatchObject({ recorded: 10, invalid: 2 });
    expect(report.problems[0]).toMatch(/^big\.jsonl: only its first/);
    expect(fs.readdirSync(spool)).toEqual([]);
  });

  it('exports the line schema the hook writes by', () => {
    expect(usageSpoolLineSchema.safeParse(JSON.parse(line({}))).success).toBe(true);
    expect(usageSpoolLineSchema.safeParse(JSON.parse(line({ event: 'ran' }))).success).toBe(false);
  });
});

describe('BatchedUsageRecorder', () => {
  it('returns at once, writes in batches, and a store that fails is logged, never thrown', async () => {
    const logged: string[] = [];
    const recorder = new BatchedUsageRecorder(store, (text) => logged.push(text));
    const use = {
      runtime: 'mcp-client',
      project: null,
      kind: 'skill' as const,
      name: 'pdf',
      server: null,
      event: 'invoked' as const,
      session: 'c1',
    };
    for (let index = 0; index < FLUSH_BATCH + 5; index += 1) recorder.record(use);
    await recorder.flush();
    expect((await store.tally({ since: 0 }))[0]?.invoked).toBe(FLUSH_BATCH + 5);
    await opened.close();
    recorder.record(use);
    await recorder.flush();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^usage: 1 event\(s\) could not be recorded/);
    opened = await (sqlite as NonNullable<typeof sqlite>).open([usageMigration], [usagePostgresMigration]);
  });
});
