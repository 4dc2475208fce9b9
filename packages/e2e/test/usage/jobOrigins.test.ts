import fs from 'node:fs';
import { runCli } from '@loadout/cli/testing';
import type { Job } from '@loadout/jobs';
import type { UsageReport } from '@loadout/usage';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectHttp, waitFor } from '../mcp/support.js';

const track = closeAfterEach();

const echo = (report: UsageReport) => report.capabilities.find((item) => item.kind === 'task' && item.id === 'echo');
const fails = (report: UsageReport) => report.capabilities.find((item) => item.kind === 'task' && item.id === 'fails');

describe('runs in the usage ledger, whoever started them', () => {
  it('counts a run started over HTTP, one from `loadout tasks run` and an MCP tool call once each, and a failed HTTP run as failed', async () => {
    const harness = await track(connectHttp());
    const { client, server, home, project } = harness;

    // A tool call over MCP runs as a job of the server's workers: the MCP layer records it, the job's end does not.
    const called = await client.callTool({ name: 'echo', arguments: { text: 'from mcp' } });
    expect(called.isError).toBeFalsy();

    const started = async (task: string, input: unknown): Promise<number> => {
      const answer = await server.request('POST', `/api/tasks/${task}/runs`, { body: { input, project } });
      expect(answer.status, answer.text).toBe(202);
      const { id } = (answer.body as { job: { id: number } }).job;
      await waitFor(
        async () => ['succeeded', 'failed'].includes(((await server.request('GET', `/api/jobs/${id}`)).body as Job).status),
        `job ${id} ends`,
      );
      return id;
    };
    const httpRun = await started('echo', { text: 'from http' });
    await started('fails', {});

    const cliRun = runCli(home, ['tasks', 'run', 'echo', '--input', '{"text":"from the command line"}', '--project', project, '--json']);
    expect(cliRun.status, cliRun.stderr).toBe(0);

    // Each job keeps where it was started.
    const jobs = await harness.jobs();
    expect(jobs.find((job) => job.id === httpRun)?.origin).toBe('http');
    expect(
      jobs
        .filter((job) => job.taskDirName === 'echo')
        .map((job) => job.origin)
        .sort(),
    ).toEqual(['http', 'mcp']);

    // The server's report takes in what its own workers and MCP layer recorded.
    const answer = await server.request('GET', `/api/usage?project=${encodeURIComponent(project)}`);
    expect(answer.status, answer.text).toBe(200);
    const viaHttp = answer.body as UsageReport;
    expect(echo(viaHttp)).toMatchObject({ invoked: 3, failed: 0 });
    expect(
      echo(viaHttp)
        ?.runtimes.map(({ runtime, invoked }) => ({ runtime, invoked }))
        .sort((a, b) => a.runtime.localeCompare(b.runtime)),
    ).toEqual([
      { runtime: 'loadout-cli', invoked: 1 },
      { runtime: 'loadout-e2e', invoked: 1 },
      { runtime: 'loadout-http', invoked: 1 },
    ]);
    expect(fails(viaHttp)).toMatchObject({ invoked: 1, failed: 1, runtimes: [expect.objectContaining({ runtime: 'loadout-http' })] });

    // And `loadout usage --json` reads the same ledger: each run once.
    const run = runCli(home, ['usage', '--project', project, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const viaCli = run.json<UsageReport>();
    expect(viaCli.project).toBe(fs.realpathSync(project));
    expect(echo(viaCli)).toMatchObject({ invoked: 3, failed: 0 });
    expect(fails(viaCli)).toMatchObject({ invoked: 1, failed: 1 });
  });
});
