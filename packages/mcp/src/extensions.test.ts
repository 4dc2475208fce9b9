import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dbModule } from '@loadout/db';
import { JobQueue, jobsModule } from '@loadout/jobs';
import { echoTask, taskTree } from '@loadout/jobs/testing';
import { keptReadsModule } from '@loadout/kept-reads';
import { closeKernel, createKernel, loadModules, resolve, resolvePlaces } from '@loadout/kernel';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { pluginsModule } from '@loadout/plugins';
import { skillsModule } from '@loadout/skills';
import { CapabilityStateService, stateModule } from '@loadout/state';
import { usageModule } from '@loadout/usage/module';
import { tasksModule } from '@loadout/tasks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceListChangedNotificationSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveExposures } from './LiveExposures.js';
import { CANCELLED_BY_CLIENT, fixedProject, McpConnection } from './McpConnection.js';
import { resolveMcpServices } from './mcpServices.js';
import { SKILLS_EXTENSION_ID, SKILLS_PAGE_SIZE } from './skillsExtension.js';
import { TASKS_EXTENSION_ID } from './tasksExtension.js';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
  removeTestdirs();
});

beforeAll(() => loadModules([pluginsModule, jobsModule, stateModule, usageModule]));

const skill = (name: string, description: string, extra = ''): string =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n`;

const slow = `setTimeout(() => process.stdout.write('late'), 30000);\n`;

function tree(extra: TreeDescription = {}): TreeDescription {
  return {
    capabilities: {
      skills: {
        pdf: {
          'SKILL.md': skill('pdf', 'Work with PDF files.', 'license: Apache-2.0\nmetadata:\n  version: "2.1"\n'),
          references: { 'FORMS.md': '# Forms\n' },
          '.hidden': 'not served\n',
        },
        'quick.md': skill('quick', 'A single-file skill.'),
        'Odd Name': { 'SKILL.md': skill('Odd Name', 'Its name breaks the Agent Skills rule.') },
      },
      tasks: {
        echo: taskTree({ name: 'Echo', implementation: 'run.mjs' }, { 'run.mjs': echoTask }),
        later: taskTree({ name: 'Later', implementation: 'run.mjs', 'mcp-task': 'optional' }, { 'run.mjs': echoTask }),
        waits: taskTree({ name: 'Waits', implementation: 'run.mjs', 'mcp-task': 'required' }, { 'run.mjs': slow }),
        totals: taskTree(
          { name: 'Totals', implementation: 'run.sh', output: { properties: { total: { type: 'number' } }, required: ['total'] } },
          { 'run.sh': 'echo \'{"total": 42}\'\n' },
        ),
        'bad-output': taskTree(
          { name: 'Bad output', implementation: 'run.sh', 'mcp-task': 'optional', output: { required: ['total'] } },
          { 'run.sh': 'echo \'{"sum": 1}\'\n' },
        ),
      },
      ...extra,
    },
  };
}

interface Connected {
  readonly client: Client;
  readonly container: DependencyContainer;
  readonly home: string;
  readonly notices: string[];
}

/** A connection to the workspace, and a client that declares the Tasks extension when `tasks` says so. */
async function connect(options: { tasks?: boolean; tree?: TreeDescription } = {}): Promise<Connected> {
  const home = testdir(options.tree ?? tree());
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    keptReadsModule(),
    dbModule,
    pluginsModule,
    skillsModule,
    tasksModule,
    jobsModule,
    stateModule,
    usageModule,
  ]);
  const services = resolveMcpServices(container, 'the test');
  const exposures = new LiveExposures(services.sessions, 25);
  const connection = new McpConnection(services, exposures, fixedProject(null), () => undefined, 'test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const capabilities = options.tasks === true ? { extensions: { [TASKS_EXTENSION_ID]: {} } } : {};
  const client = new Client({ name: 'test', version: '1' }, { capabilities });
  const notices: string[] = [];
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void notices.push('resources'));
  await client.connect(clientSide);
  open.push(async () => {
    await client.close();
    await connection.close();
    exposures.close();
    closeKernel(container);
    await container.dispose();
  });
  return { client, container, home, notices };
}

/** A raw request of an extension's method, answered as the server sent it. */
function raw(client: Client, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return client.request({ method, params }, ResultSchema) as Promise<Record<string, unknown>>;
}

const sha256 = (bytes: string | Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function waitFor<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('the Skills extension', () => {
  it('is declared, and lists each skill it can serve with its frontmatter as written and every file with digest and size', async () => {
    const { client, home } = await connect();
    expect(client.getServerCapabilities()?.extensions).toMatchObject({ [SKILLS_EXTENSION_ID]: {} });
    const { skills, nextCursor } = (await raw(client, 'skills/list')) as { skills: unknown[]; nextCursor?: string };
    expect(nextCursor).toBeUndefined();
    const manifest = fs.readFileSync(path.join(home, 'capabilities/skills/pdf/SKILL.md'));
    expect(skills).toEqual([
      {
        uri: 'skill://pdf/SKILL.md',
        frontmatter: { name: 'pdf', description: 'Work with PDF files.', license: 'Apache-2.0', metadata: { version: '2.1' } },
        resources: [
          { uri: 'skill://pdf/SKILL.md', digest: sha256(manifest), size: manifest.length },
          { uri: 'skill://pdf/references/FORMS.md', digest: sha256('# Forms\n'), size: 8 },
        ],
      },
      {
        uri: 'skill://quick/SKILL.md',
        frontmatter: { name: 'quick', description: 'A single-file skill.' },
        resources: [{ uri: 'skill://quick/SKILL.md', digest: sha256(skill('quick', 'A single-file skill.')), size: expect.any(Number) }],
      },
    ]);
    // What the entry describes is what a read serves, byte for byte.
    const read = await client.readResource({ uri: 'skill://pdf/references/FORMS.md' });
    expect(read.contents).toEqual([{ uri: 'skill://pdf/references/FORMS.md', mimeType: 'text/markdown', text: '# Forms\n' }]);
    // A skill whose name breaks the naming rule keeps Loadout's own URI only.
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining(['skill://pdf/SKILL.md', 'skill://quick/SKILL.md', 'skill://odd-name']));
    expect((await client.listResources()).resources.find((resource) => resource.uri === 'skill://pdf/SKILL.md')).toMatchObject({
      name: 'pdf',
      description: 'Work with PDF files.',
      mimeType: 'text/markdown',
    });
  });

  it('answers skills/get with the entry skills/list gives, and -32602 with a code for a URI it does not serve or bad params', async () => {
    const { client } = await connect();
    const listed = ((await raw(client, 'skills/list')) as { skills: { uri: string }[] }).skills[0];
    expect(await raw(client, 'skills/get', { uri: 'skill://pdf/SKILL.md' })).toEqual({ skill: listed });
    for (const uri of ['skill://nosuch/SKILL.md', 'skill://pdf/references/FORMS.md', 'skill://odd-name/SKILL.md', 'file:///etc/passwd']) {
      await expect(raw(client, 'skills/get', { uri })).rejects.toMatchObject({ code: -32602, data: { code: 'SKILL_NOT_FOUND' } });
    }
    await expect(raw(client, 'skills/get', {})).rejects.toMatchObject({ code: -32602, data: { code: 'SKILLS_REQUEST_INVALID' } });
    await expect(raw(client, 'skills/list', { cursor: 7 })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'SKILLS_REQUEST_INVALID' },
    });
    await expect(raw(client, 'skills/list', { cursor: 'not-mine' })).rejects.toMatchObject({ code: -32602 });
    await expect(raw(client, 'skills/nope')).rejects.toMatchObject({ code: -32601 });
  });

  it('pages a long list without splitting an entry, and every page adds up to the whole', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < SKILLS_PAGE_SIZE + 5; i += 1) many[`s${i}.md`] = skill(`s${i}`, `Skill ${i}.`);
    const { client } = await connect({ tree: { capabilities: { skills: many } } });
    const first = (await raw(client, 'skills/list')) as { skills: { uri: string }[]; nextCursor: string };
    expect(first.skills).toHaveLength(SKILLS_PAGE_SIZE);
    const second = (await raw(client, 'skills/list', { cursor: first.nextCursor })) as { skills: { uri: string }[]; nextCursor?: string };
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.skills, ...second.skills].map((entry) => entry.uri);
    expect(new Set(all).size).toBe(SKILLS_PAGE_SIZE + 5);
  });

  it('stops listing a skill switched off, and tells the client its resources changed when a skill changes', async () => {
    const { client, container, home, notices } = await connect();
    await client.listResources();
    const state = resolve(container, CapabilityStateService);
    expect((await state.setCapabilityState({ project: null }, [{ kind: 'skill', id: 'quick', enabled: false }])).errors).toEqual([]);
    await waitFor(async () => (notices.includes('resources') ? true : null), 'resources/list_changed after switching a skill off');
    expect(((await raw(client, 'skills/list')) as { skills: { uri: string }[] }).skills.map((entry) => entry.uri)).toEqual([
      'skill://pdf/SKILL.md',
    ]);
    await expect(raw(client, 'skills/get', { uri: 'skill://quick/SKILL.md' })).rejects.toMatchObject({ code: -32602 });

    const edited = skill('pdf', 'Work with PDF files, now better.');
    fs.writeFileSync(path.join(home, 'capabilities/skills/pdf/SKILL.md'), edited);
    await waitFor(
      async () => (notices.filter((notice) => notice === 'resources').length >= 2 ? true : null),
      'a second resources/list_changed',
    );
    const entry = ((await raw(client, 'skills/get', { uri: 'skill://pdf/SKILL.md' })) as { skill: { resources: { digest: string }[] } })
      .skill;
    expect(entry.resources[0]?.digest).toBe(sha256(edited));
  });
});

describe('the Tasks extension', () => {
  it('describes which tools may run as tasks and which declare an output schema', async () => {
    const { client } = await connect({ tasks: true });
    const tools = (await client.listTools()).tools;
    expect(tools.find((tool) => tool.name === 'later')).toMatchObject({ execution: { taskSupport: 'optional' } });
    expect(tools.find((tool) => tool.name === 'waits')).toMatchObject({ execution: { taskSupport: 'required' } });
    expect(tools.find((tool) => tool.name === 'echo')).not.toHaveProperty('execution');
    expect(tools.find((tool) => tool.name === 'totals')?.outputSchema).toEqual({
      type: 'object',
      properties: { total: { type: 'number' } },
      required: ['total'],
    });
  });

  it('runs a task-supporting call as a task backed by one job: created at once, polled, its result fetched', async () => {
    const { client, container } = await connect({ tasks: true });
    const created = await raw(client, 'tools/call', { name: 'later', arguments: { n: 1 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String), ttlMs: expect.any(Number) });
    const done = await waitFor(async () => {
      const task = await raw(client, 'tasks/get', { taskId: created.taskId });
      return task.status === 'working' ? null : task;
    }, 'the task to finish');
    expect(done).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text' }] },
    });
    const result = done.result as { content: { text: string }[]; _meta: { 'loadout/jobId': number } };
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual({ input: { n: 1 } });
    const jobs = await resolve(container, JobQueue).list();
    expect(jobs).toEqual([expect.objectContaining({ id: result._meta['loadout/jobId'], taskDirName: 'later', status: 'succeeded' })]);
    // A short call stays plain, and says so.
    expect(await raw(client, 'tools/call', { name: 'echo', arguments: {} })).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text' }],
    });
  });

  it('cancels a task: its job is stopped and failed, the task reads cancelled', async () => {
    const { client, container } = await connect({ tasks: true });
    const created = await raw(client, 'tools/call', { name: 'waits', arguments: {} });
    expect(await raw(client, 'tasks/cancel', { taskId: created.taskId })).toEqual({ resultType: 'complete' });
    expect(await raw(client, 'tasks/get', { taskId: created.taskId })).toMatchObject({ status: 'cancelled' });
    const queue = resolve(container, JobQueue);
    const job = await waitFor(async () => {
      const [first] = await queue.list();
      return first?.status === 'failed' ? first : null;
    }, 'the job to be failed');
    expect(job).toMatchObject({ taskDirName: 'waits', error: CANCELLED_BY_CLIENT });
  });

  it('keeps calls plain for a client without the extension, refuses a task that needs it and the tasks methods, with -32021', async () => {
    const { client, container } = await connect();
    const plain = await raw(client, 'tools/call', { name: 'later', arguments: { n: 2 } });
    expect(plain).not.toHaveProperty('taskId');
    expect(plain).toMatchObject({ content: [{ type: 'text' }] });
    await expect(raw(client, 'tools/call', { name: 'waits', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { code: 'MCP_TASKS_EXTENSION_REQUIRED', requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'])
      await expect(raw(client, method, { taskId: 'x' })).rejects.toMatchObject({ code: -32021 });
    for (const method of ['tasks/result', 'tasks/list'])
      await expect(raw(client, method, { taskId: 'x' })).rejects.toMatchObject({ code: -32601 });
    // One request may declare the extension for itself alone.
    const optIn = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } } };
    expect(await raw(client, 'tools/call', { name: 'later', arguments: {}, _meta: optIn })).toMatchObject({ resultType: 'task' });
    expect((await resolve(container, JobQueue).list()).map((job) => job.taskDirName).sort()).toEqual(['later', 'later']);
  });
});

describe('structured output', () => {
  it('answers a task that declares an output schema with structuredContent checked against it', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'totals', arguments: {} });
    expect(result).toMatchObject({ structuredContent: { total: 42 }, content: [{ type: 'text', text: '{"total":42}' }] });
    expect(result.isError).toBeUndefined();
  });

  it('refuses an output that does not match, with a coded error, plain and as a failed task', async () => {
    const plain = await connect();
    await expect(plain.client.callTool({ name: 'bad-output', arguments: {} })).rejects.toMatchObject({
      code: -32603,
      data: { code: 'TASK_OUTPUT_INVALID' },
      message: expect.stringMatching(/task bad-output \(job \d+\): the task's output does not match its output schema: .*total/),
    });
    const { client } = await connect({ tasks: true });
    const created = await raw(client, 'tools/call', { name: 'bad-output', arguments: {} });
    const failed = await waitFor(async () => {
      const task = await raw(client, 'tasks/get', { taskId: created.taskId });
      return task.status === 'working' ? null : task;
    }, 'the task to fail');
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, data: { code: 'TASK_OUTPUT_INVALID' } } });
    expect(failed).not.toHaveProperty('result');
  });
});
