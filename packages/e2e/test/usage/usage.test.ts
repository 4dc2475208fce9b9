import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { USAGE_SPOOL_FOLDER, type UsageReport, usageSpoolLineSchema } from '@loadout/usage';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, connectStdio } from '../mcp/support.js';
import { TestServer } from '../server/support.js';

const track = closeAfterEach();
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  removeTestdirs();
});

function usage(home: string, args: readonly string[]): { status: number; report: UsageReport; stderr: string } {
  const run = runCli(home, ['usage', ...args, '--json']);
  return { status: run.status, report: run.json<UsageReport>(), stderr: run.stderr };
}

const entry = (report: UsageReport, kind: string, id: string) => report.capabilities.find((item) => item.kind === kind && item.id === id);

function spoolLine(fields: Record<string, unknown>): string {
  return JSON.stringify({
    v: 1,
    at: new Date(Date.now() - 60_000).toISOString(),
    runtime: 'claude-code',
    project: null,
    kind: 'skill',
    name: 'guide',
    event: 'invoked',
    session: 'cc-1',
    ...fields,
  });
}

describe('loadout usage: the ledger, end to end', () => {
  it('a real `loadout mcp` session that reads a skill and calls a task shows both in `loadout usage --json`', async () => {
    const harness = await track(connectStdio());
    const { client, home, project } = harness;
    const read = await client.readResource({ uri: 'skill://guide' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    const called = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(called.isError).toBeFalsy();
    // Closed at once: what the connection recorded is written as it closes, not lost with the process.
    await harness.close();
    await new Promise((done) => setTimeout(done, 300));

    const { status, report } = usage(home, ['--project', project]);
    expect(status).toBe(0);
    expect(report.project).toBe(fs.realpathSync(project));
    expect(entry(report, 'skill', 'guide')).toMatchObject({
      offered: true,
      invoked: 1,
      failed: 0,
      sessions: 1,
      runtimes: [{ runtime: 'loadout-e2e', invoked: 1, failed: 0 }],
    });
    expect(entry(report, 'task', 'echo')).toMatchObject({ offered: true, invoked: 1, failed: 0 });
    // Offered and never used while the ledger shows use: a suggestion naming the exact command.
    expect(report.suggestions).toContainEqual(
      expect.objectContaining({
        kind: 'task',
        id: 'fails',
        reason: 'unused',
        command: `loadout capability set task/fails --disable --project ${fs.realpathSync(project)}`,
      }),
    );
    expect(usage(home, ['--project', project, '--runtime', 'codex']).report.capabilities.every((item) => item.invoked === 0)).toBe(true);
  });

  it('takes spool lines in once, counting the invalid and the absurd, and suggests pinning a skill used in most sessions', () => {
    const home = testdir({ capabilities: { skills: { guide: { 'SKILL.md': '---\nname: guide\ndescription: How to.\n---\nBody\n' } } } });
    const spool = path.join(home, '.loadout', USAGE_SPOOL_FOLDER);
    fs.mkdirSync(spool, { recursive: true });
    const valid = ['cc-1', 'cc-2', 'cc-3'].map((session) => spoolLine({ session }));
    for (const line of valid) expect(usageSpoolLineSchema.safeParse(JSON.parse(line)).success).toBe(true);
    const lines = [
      ...valid,
      spoolLine({ kind: 'tool', name: 'search', server: 'github', event: 'failed', session: 'cc-1' }),
      '{"v":1,',
      spoolLine({ event: 'exploded' }),
      spoolLine({ name: `guide${'\u001b[2J'}` }),
      spoolLine({ project: `/${'p'.repeat(5000)}` }),
    ];
    fs.writeFileSync(path.join(spool, 'claude-code.jsonl'), `${lines.join('\n')}\n`);

    const first = usage(home, []);
    expect(first.status).toBe(0);
    expect(first.report.ingested).toMatchObject({ files: 1, recorded: 4, invalid: 3, dropped: 1 });
    expect(entry(first.report, 'skill', 'guide')).toMatchObject({ offered: true, invoked: 3, sessions: 3 });
    expect(entry(first.report, 'tool', 'github/search')).toMatchObject({ offered: false, invoked: 1, failed: 1 });
    expect(first.report.suggestions).toContainEqual(
      expect.objectContaining({ kind: 'skill', id: 'guide', reason: 'used-in-most-sessions', command: 'loadout budget pin guide' }),
    );
    expect(fs.readdirSync(spool)).toEqual([]);

    const again = usage(home, []);
    expect(again.report.ingested).toMatchObject({ files: 0, recorded: 0, invalid: 0, dropped: 0 });
    expect(entry(again.report, 'skill', 'guide')?.invoked).toBe(3);
  });

  it('refuses a bad window, runtime or project with a coded error and changes nothing', () => {
    const home = testdir({ capabilities: {} });
    const spool = path.join(home, '.loadout', USAGE_SPOOL_FOLDER);
    fs.mkdirSync(spool, { recursive: true });
    fs.writeFileSync(path.join(spool, 'waiting.jsonl'), `${spoolLine({})}\n`);
    for (const [args, code] of [
      [['--since', '0d'], 'USAGE_QUERY_INVALID'],
      [['--since', 'forever'], 'USAGE_QUERY_INVALID'],
      [['--since', '99999d'], 'USAGE_QUERY_INVALID'],
      [['--runtime', 'not a runtime'], 'USAGE_QUERY_INVALID'],
      [['--project', path.join(home, 'absent')], 'PROJECT_NOT_FOUND'],
    ] as const) {
      const run = runCli(home, ['usage', ...args, '--json']);
      expect(run.status, args.join(' ')).toBe(1);
      expect(run.json<{ error: { code: string } }>().error.code).toBe(code);
    }
    const bad = runCli(home, ['usage', '--json'], { LOADOUT_KEEP_USAGE_DAYS: 'forever' });
    expect(bad.status).toBe(2);
    // Nothing was taken from the spool by any refused run.
    expect(fs.readdirSync(spool)).toEqual(['waiting.jsonl']);
  });
});

describe('GET /api/usage', () => {
  it('answers the report behind the token, and refuses a bad query with a coded 400 that changes nothing', async () => {
    const server = await TestServer.start();
    servers.push(server);
    const spool = path.join(server.places.dataDir, USAGE_SPOOL_FOLDER);
    fs.mkdirSync(spool, { recursive: true });
    fs.writeFileSync(path.join(spool, 'waiting.jsonl'), `${spoolLine({ name: 'report', kind: 'tool', server: 'x' })}\n`);

    expect((await server.request('GET', '/api/usage', { token: null })).status).toBe(401);
    // Refused before the handler runs: the spool is not touched (the server's own timer takes it in
    // only every few seconds, and these answers come within the first).
    for (const [query, code] of [
      ['since=forever', 'USAGE_QUERY_INVALID'],
      ['since=0d', 'USAGE_QUERY_INVALID'],
      ['runtime=a%20b', 'USAGE_QUERY_INVALID'],
      ['bogus=1', 'REQUEST_INVALID'],
    ] as const) {
      const answer = await server.request('GET', `/api/usage?${query}`);
      expect(answer.status, query).toBe(400);
      expect((answer.body as { error: { code: string } }).error.code, query).toBe(code);
    }
    expect(fs.readdirSync(spool)).toEqual(['waiting.jsonl']);

    const answer = await server.request('GET', '/api/usage?since=7d');
    expect(answer.status).toBe(200);
    const report = answer.body as UsageReport;
    expect(report.ingested).toMatchObject({ files: 1, recorded: 1 });
    expect(entry(report, 'tool', 'x/report')).toMatchObject({ invoked: 1, offered: false });
    expect(entry(report, 'task', 'echo')).toMatchObject({ offered: true, invoked: 0 });
  });
});
