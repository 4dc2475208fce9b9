import { runCli } from '@loadout/cli/testing';
import { JobQueue } from '@loadout/jobs';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from '../server/support.js';

// Item 22 of the hardening issue: JSON nested deeper than anyone means is bad input, answered 400
// (usage 2 on the command line), never a 500 and never a queued job.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('22 deeply nested JSON', () => {
  it('22 as a run input, a pipeline step input or a JSON-RPC body is a 400, and queues nothing', async () => {
    server = await TestServer.start();
    for (const depth of [5_000, 200_000]) {
      const run = await server.request('POST', '/api/tasks/echo/runs', { raw: `{"input":${nested(depth)}}` });
      expect([depth, run.status, run.body]).toEqual([
        depth,
        400,
        { error: { code: 'BODY_TOO_DEEP', message: expect.stringContaining('deeper than') } },
      ]);
      const pipeline = await server.request('POST', '/api/pipelines', { raw: `{"steps":[{"task":"echo","input":${nested(depth)}}]}` });
      expect(pipeline.status).toBe(400);
      const rpc = await server.request('POST', '/rpc', {
        raw: `{"jsonrpc":"2.0","id":1,"method":"skills.list","params":{"project":${nested(depth)}}}`,
      });
      expect(rpc.status).toBe(200);
      expect(rpc.body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('deeper than') },
      });
    }
    expect(await resolve(server.container, JobQueue).list()).toEqual([]);
    // Nesting anyone means still runs.
    const fine = await server.request('POST', '/api/tasks/echo/runs', { raw: `{"input":{"a":${nested(50)}}}` });
    expect(fine.status).toBe(202);
    expect((await server.waitForJob((fine.body as { job: { id: number } }).job.id)).status).toBe('succeeded');
  });

  it('22 as `tasks run --input` is a usage error', async () => {
    server = await TestServer.start();
    const run = runCli(server.home, ['tasks', 'run', 'echo', '--json', '--input', nested(20_000)]);
    expect(run.status).toBe(2);
    expect(run.json()).toMatchObject({ error: { code: 'USAGE', message: expect.stringContaining('deeper than') } });
  });
});
