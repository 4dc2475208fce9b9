import fs from 'node:fs';
import path from 'node:path';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectHttp, connectStdio, type McpHarness, waitFor } from './support.js';

const track = closeAfterEach();

const optIn = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** A 1×1 PNG, as a task would draw one. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Draws a chart and writes a report into its output folder, and says so on stdout. */
const plotTask = `
import fs from 'node:fs';
import path from 'node:path';
const out = process.env.LOADOUT_OUTPUT_DIR;
fs.writeFileSync(path.join(out, 'chart.png'), Buffer.from('${PNG_BASE64}', 'base64'));
fs.writeFileSync(path.join(out, 'report.md'), '# Report\\nAll good.\\n');
console.log('drew the chart');
`;

/** Tries to hand over a file outside its output folder through a link. */
const leakTask = `
import fs from 'node:fs';
import path from 'node:path';
fs.symlinkSync(path.join(process.env.LOADOUT_TASK_DIR, 'TASK.md'), path.join(process.env.LOADOUT_OUTPUT_DIR, 'task.md'));
console.log('linked');
`;

/** Adds an owner task to the running server's workspace (both may run as MCP tasks). */
function addTask(home: string, dirName: string, program: string): void {
  const folder = path.join(home, 'capabilities/tasks', dirName);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'run.mjs'), program);
  fs.writeFileSync(
    path.join(folder, 'TASK.md'),
    `---\nname: ${dirName}\ndescription: Writes files for its caller.\nimplementation: run.mjs\nmcp-task: optional\n---\n`,
  );
}

async function filesAsContent(h: McpHarness): Promise<void> {
  addTask(h.home, 'plot', plotTask);
  addTask(h.home, 'leak', leakTask);
  await waitFor(async () => (await h.client.listTools()).tools.some((tool) => tool.name === 'leak'), 'the new tools');
  const expected = [
    { type: 'text', text: 'drew the chart\n' },
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: {
        uri: expect.stringMatching(/^loadout:\/\/jobs\/\d+\/output\/report\.md$/),
        mimeType: 'text/markdown',
        text: '# Report\nAll good.\n',
      },
    },
  ];

  // A plain call: the files follow the text.
  const plain = await h.client.callTool({ name: 'plot', arguments: {} });
  expect(plain.isError).toBeUndefined();
  expect(plain.content).toEqual(expected);

  // The same call as an MCP task: the files are in the task's result.
  const raw = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
    h.client.request({ method, params }, ResultSchema) as Promise<Record<string, unknown>>;
  const created = await raw('tools/call', { name: 'plot', arguments: {}, _meta: optIn });
  expect(created).toMatchObject({ resultType: 'task' });
  let done: Record<string, unknown> = {};
  await waitFor(async () => {
    done = await raw('tasks/get', { taskId: created.taskId, _meta: optIn });
    return done.status !== 'working';
  }, 'the task to finish');
  expect(done).toMatchObject({ status: 'completed', result: { content: expected } });

  // A link out of the folder is never followed: the call fails with a coded error, nothing handed over.
  const refused = await h.client.callTool({ name: 'leak', arguments: {} }).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toMatchObject({ message: expect.stringContaining('output "task.md" is not a regular file') });
  expect(refused).toMatchObject({ data: { code: 'TASK_OUTPUT_INVALID' } });
}

describe('files a task writes into its output folder', () => {
  it('reach an MCP client as image and resource content, over stdio', async () => {
    await filesAsContent(await track(connectStdio()));
  });

  it('reach an MCP client as image and resource content, over HTTP', async () => {
    await filesAsContent(await track(connectHttp()));
  });
});
