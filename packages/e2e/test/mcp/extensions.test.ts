import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectHttp, connectStdio, type McpHarness, waitFor } from './support.js';

const track = closeAfterEach();

const TASKS = 'io.modelcontextprotocol/tasks';
/** The client below does not declare the Tasks extension when it connects: each request declares it for itself. */
const optIn = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Record<string, unknown>;
  readonly resources: { uri: string; digest: string; size: number }[];
}

/** What both transports must do with the extensions, sent as the extensions' raw requests by the official SDK client. */
async function extensions(h: McpHarness): Promise<void> {
  const raw = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
    h.client.request({ method, params }, ResultSchema) as Promise<Record<string, unknown>>;
  expect(h.client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/skills': {}, [TASKS]: {} });

  // Skills: every skill of the session, the plugin's under its plugin's name, with digests of the files as they are.
  const { skills } = (await raw('skills/list')) as { skills: SkillEntry[] };
  expect(skills.map((entry) => entry.uri).sort()).toEqual([
    'skill://acme/acme-skill/SKILL.md',
    'skill://guide/SKILL.md',
    'skill://owner-skill/SKILL.md',
    'skill://project-skill/SKILL.md',
  ]);
  const guide = skills.find((entry) => entry.uri === 'skill://guide/SKILL.md') as SkillEntry;
  const folder = path.join(h.home, 'capabilities/skills/guide');
  const manifest = fs.readFileSync(path.join(folder, 'SKILL.md'));
  const usage = fs.readFileSync(path.join(folder, 'reference/usage.md'));
  expect(guide).toEqual({
    uri: 'skill://guide/SKILL.md',
    frontmatter: { name: 'guide', description: 'How to use the thing.' },
    resources: [
      { uri: 'skill://guide/SKILL.md', digest: sha256(manifest), size: manifest.length },
      { uri: 'skill://guide/reference/usage.md', digest: sha256(usage), size: usage.length },
    ],
  });
  const plugin = (await raw('skills/get', { uri: 'skill://acme/acme-skill/SKILL.md' })) as { skill: SkillEntry };
  expect(plugin.skill.frontmatter).toEqual({ name: 'acme-skill', description: 'A skill of acme.' });
  const read = await h.client.readResource({ uri: 'skill://acme/acme-skill/SKILL.md' });
  expect(read.contents).toEqual([
    {
      uri: 'skill://acme/acme-skill/SKILL.md',
      mimeType: 'text/markdown',
      text: '---\nname: acme-skill\ndescription: A skill of acme.\n---\nBody.\n',
    },
  ]);
  expect(sha256(Buffer.from((read.contents[0] as { text: string }).text))).toBe(plugin.skill.resources[0]?.digest);
  // Loadout's own URI of the owner's skill still reads.
  expect((await h.client.readResource({ uri: 'skill://guide' })).contents[0]).toMatchObject({ text: manifest.toString() });
  await expect(raw('skills/get', { uri: 'skill://acme-skill/SKILL.md' })).rejects.toMatchObject({ code: -32602 });

  // Tasks: a call of a task-supporting tool is created at once as a task, backed by a job, and polled to its result.
  expect((await h.client.listTools()).tools.find((tool) => tool.name === 'later')).toMatchObject({
    execution: { taskSupport: 'optional' },
    outputSchema: { type: 'object', required: ['input'] },
  });
  const created = await raw('tools/call', { name: 'later', arguments: { text: 'async' }, _meta: optIn });
  expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String) });
  let done: Record<string, unknown> = {};
  await waitFor(async () => {
    done = await raw('tasks/get', { taskId: created.taskId, _meta: optIn });
    return done.status !== 'working';
  }, 'the task to finish');
  expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { input: { text: 'async' } } } });
  const jobId = (done.result as { _meta: Record<string, unknown> })._meta['loadout/jobId'];
  expect((await h.jobs()).find((job) => job.id === jobId)).toMatchObject({ taskDirName: 'later', status: 'succeeded', project: h.project });
  // Without the extension the same call stays plain, its output still structured; the tasks methods are refused.
  const plain = await h.client.callTool({ name: 'later', arguments: { text: 'sync' } });
  expect(plain.structuredContent).toEqual({ input: { text: 'sync' } });
  await expect(raw('tasks/get', { taskId: created.taskId })).rejects.toMatchObject({ code: -32021 });
}

describe('MCP extensions: Skills and Tasks', () => {
  it('are served by loadout mcp over stdio', async () => {
    await extensions(await track(connectStdio()));
  });

  it('are served by /mcp over HTTP', async () => {
    await extensions(await track(connectHttp()));
  });
});
