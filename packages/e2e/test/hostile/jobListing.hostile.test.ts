import { taskTree } from '@loadout/jobs/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest, TestServer, workspaceTree } from '../server/support.js';
import { HOSTILE_TOKEN, serveBuilt, stopBuiltServers } from './support.js';

// Item 11 of the hardening issue: 60 jobs made /api/jobs an 80 MB answer, and rows were never
// pruned. A listing is a page of summaries; outputs come one job at a time; old jobs go.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  await stopBuiltServers();
  removeTestdirs();
});

const RUNS = 12;

/** A task that prints a whole mebibyte, the most a run keeps. */
const bigTask = taskTree(
  { name: 'Big', implementation: 'run.sh' },
  { 'run.sh': "cat >/dev/null\nhead -c 1048576 /dev/zero | tr '\\\\0' x\n" },
);

interface Summary {
  readonly id: number;
  readonly taskDirName: string;
  readonly status: string;
}

describe('11.11 jobs', () => {
  it('11.11 GET /api/jobs is a page of summaries without outputs; each output is read with its job; --keep-jobs prunes', async () => {
    server = await TestServer.start({ tree: workspaceTree({ big: bigTask }) });
    const ids: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const answer = await server.request('POST', '/api/tasks/big/runs', { body: {} });
      ids.push((answer.body as { job: { id: number } }).job.id);
    }
    for (const id of ids) expect((await server.waitForJob(id)).status).toBe('succeeded');
    await server
      .request('POST', '/api/tasks/echo/runs', { body: { input: { n: 1 } } })
      .then(async (answer) => server?.waitForJob((answer.body as { job: { id: number } }).job.id));

    const list = await server.request('GET', '/api/jobs');
    expect(list.status).toBe(200);
    expect(list.text.length).toBeLessThan(20_000);
    const jobs = list.body as Summary[];
    expect(jobs).toHaveLength(RUNS + 1);
    for (const job of jobs) expect(Object.keys(job)).not.toEqual(expect.arrayContaining(['output']));
    const one = await server.request('GET', `/api/jobs/${ids[0]}`);
    expect((one.body as { output: string }).output).toHaveLength(1024 * 1024);

    // Pages: newest first, `before` the last id seen; `task` keeps one task's runs.
    const first = (await server.request('GET', '/api/jobs?limit=5&task=big')).body as Summary[];
    const second = (await server.request('GET', `/api/jobs?limit=5&task=big&before=${first.at(-1)?.id}`)).body as Summary[];
    expect([...first, ...second].map((job) => job.id)).toEqual(ids.slice(-10).reverse());
    expect((await server.request('GET', '/api/jobs?limit=501')).status).toBe(400);
    expect((await server.request('GET', '/api/jobs?before=0')).status).toBe(400);

    // A server started with a smaller retention prunes at once, keeping the newest.
    const home = server.home;
    await server.close();
    server = null;
    const built = await serveBuilt(home, ['--keep-jobs', '5']);
    const kept = (await sendRequest(built.port, 'GET', '/api/jobs?limit=500', { token: HOSTILE_TOKEN })).body as Summary[];
    expect(kept.map((job) => job.id)).toEqual([...ids.slice(-4), (ids[RUNS - 1] as number) + 1].reverse());
  });
});
