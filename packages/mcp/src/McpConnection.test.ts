import fs from 'node:fs';
import path from 'node:path';
import { affordancesModule } from '@loadout/affordances';
import { agentsModule } from '@loadout/agents';
import { commandsModule } from '@loadout/commands';
import { dbModule } from '@loadout/db';
import { JobQueue, jobsModule } from '@loadout/jobs';
import { echoTask, runNotificationCatalogue, taskTree } from '@loadout/jobs/testing';
import { keptReadsModule } from '@loadout/kept-reads';
import { closeKernel, createKernel, loadModules, resolve, resolvePlaces } from '@loadout/kernel';
import { isProcessAlive } from '@loadout/files';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { notificationsModule } from '@loadout/notifications';
import { pluginsModule } from '@loadout/plugins';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { CapabilityStateService, stateModule } from '@loadout/state';
import { UsageRecorder, UsageStore } from '@loadout/usage';
import { usageModule } from '@loadout/usage/module';
import { tasksModule } from '@loadout/tasks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveExposures } from './LiveExposures.js';
import { CANCELLED_BY_CLIENT, fixedProject, MAX_RESULT_CHARS, McpConnection, RESOURCE_PAGE_SIZE } from './McpConnection.js';
import { resolveMcpServices } from './mcpServices.js';
import type { McpMethod } from './mcpMethods.js';
import { PromptNotFoundError } from './McpErrors.js';
import { z } from 'zod';

interface Harness {
  readonly client: Client;
  readonly container: DependencyContainer;
  readonly home: string;
  readonly project: string;
  readonly notices: string[];
}

const open: { client: Client; connection: McpConnection; exposures: LiveExposures; container: DependencyContainer }[] = [];
afterEach(async () => {
  for (const { client, connection, exposures, container } of open.splice(0)) {
    await client.close();
    await connection.close();
    exposures.close();
    closeKernel(container);
    await container.dispose();
  }
  removeTestdirs();
});

const skill = (name: string, description: string, body = `# ${name}\nDo it well.\n`): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** Prints its pid and its child's, then waits to be stopped. */
const sleeper = `
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
process.stdout.write(JSON.stringify({ pid: process.pid, child: child.pid }) + '\\n');
setTimeout(() => {}, 60000);
`;

function workspace(extra: TreeDescription = {}): TreeDescription {
  return {
    capabilities: {
      notifications: { 'loadout-runs.json': runNotificationCatalogue },
      affordances: { 'browser.md': '---\nname: browser\ndescription: A browser is at hand.\n---\n' },
      servers: { 'github.json': JSON.stringify({ name: 'GitHub', command: 'gh-mcp', args: [], env: { GITHUB_TOKEN: 'ghp_secret' } }) },
      skills: {
        pdf: {
          'SKILL.md': skill('pdf', 'Work with PDF files.'),
          scripts: { 'extract.py': "print('extract')\n", deeper: { 'notes.md': 'notes\n' } },
          '.env': 'SECRET=1\n',
          'big.bin': Buffer.alloc(1024 * 1024 + 10, 1),
        },
        'quick.md': skill('quick', 'A single-file skill.'),
      },
      tasks: {
        echo: taskTree(
          {
            name: 'Echo',
            description: 'Prints its input back.',
            implementation: 'run.mjs',
            input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          },
          { 'run.mjs': echoTask },
        ),
        'make report': taskTree({ name: 'Report', implementation: 'run.sh' }, { 'run.sh': 'echo report\n' }),
        fails: taskTree(
          { name: 'Fails', implementation: 'run.sh' },
          { 'run.sh': 'echo partial\nfor i in $(seq 1 2000); do echo "noise $i" >&2; done\necho "the real error" >&2\nexit 3\n' },
        ),
        chatty: taskTree(
          { name: 'Chatty', implementation: 'run.mjs' },
          { 'run.mjs': `process.stdout.write('x'.repeat(${MAX_RESULT_CHARS + 5000}));\n` },
        ),
        sleeper: taskTree({ name: 'Sleeper', implementation: 'run.mjs' }, { 'run.mjs': sleeper }),
        slow: taskTree({ name: 'Slow', implementation: 'run.sh', timeout: 1 }, { 'run.sh': 'echo begun\nsleep 30\n' }),
        'bad-schema': taskTree({ name: 'Bad schema', implementation: 'run.sh', input: { type: 'array' } }, { 'run.sh': 'echo never\n' }),
      },
      ...extra,
    },
    project: { '.agents': { skills: { local: { 'SKILL.md': skill('local', 'Only in this project.') } } } },
    outside: { 'secret.txt': 'TOP SECRET CONTENT\n' },
  };
}

// The later parts of the modules (the job queue's runner, the state service, the plugin manager)
// loaded first, as `loadout mcp` does: the containers below are whole.
beforeAll(() => loadModules([pluginsModule, jobsModule, stateModule, usageModule]));

async function connect(tree: TreeDescription = workspace(), methods: readonly McpMethod[] = []): Promise<Harness> {
  const home = testdir(tree);
  if (fs.existsSync(path.join(home, 'capabilities/skills/pdf'))) {
    fs.symlinkSync(path.join(home, 'outside/secret.txt'), path.join(home, 'capabilities/skills/pdf/leak.txt'));
  }
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    keptReadsModule(),
    dbModule,
    pluginsModule,
    skillsModule,
    affordancesModule,
    notificationsModule,
    serversModule,
    tasksModule,
    agentsModule,
    commandsModule,
    jobsModule,
    stateModule,
    usageModule,
  ]);
  const project = path.join(home, 'project');
  const services = resolveMcpServices(container, 'the test');
  const exposures = new LiveExposures(services.sessions, 25);
  const connection = new McpConnection(services, exposures, fixedProject(project), () => undefined, 'test', methods);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  const notices: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices.push('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void notices.push('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void notices.push('prompts'));
  await client.connect(clientSide);
  open.push({ client, connection, exposures, container });
  return { client, container, home, project, notices };
}

async function waitFor(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

const text = (result: unknown): string => ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

describe('tools', () => {
  it('lists each task that is on, named from its folder, with its description and input schema', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'fails', 'chatty', 'sleeper']));
    expect(names.find((name) => name.startsWith('make_report_'))).toMatch(/^make_report_[0-9a-f]{8}$/);
    expect(names).not.toContain('bad-schema');
    expect(tools.find((tool) => tool.name === 'echo')).toMatchObject({
      title: 'Echo',
      description: 'Prints its input back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(tools.find((tool) => tool.name === 'fails')?.inputSchema).toEqual({ type: 'object', additionalProperties: true });
  });

  it('reports each skill read, prompt get and tool call to the usage ledger as the client that made it, failures as failed', async () => {
    const { client, container, project } = await connect();
    await client.readResource({ uri: 'skill://pdf' });
    await client.readResource({ uri: 'skill://pdf/scripts/extract.py' });
    await client.getPrompt({ name: 'skill:quick' });
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    await client.callTool({ name: 'fails', arguments: {} });
    await resolve(container, UsageRecorder).flush();
    const tallies = await resolve(container, UsageStore).tally({ since: 0 });
    expect(tallies.map((t) => [t.runtime, t.project, t.kind, t.name, t.invoked, t.failed, t.sessions]).sort()).toEqual([
      ['test', project, 'skill', 'pdf', 1, 0, 1],
      ['test', project, 'skill', 'quick', 1, 0, 1],
      ['test', project, 'task', 'echo', 1, 0, 1],
      ['test', project, 'task', 'fails', 1, 1, 1],
    ]);
  });

  it('runs a call as one job and returns its stdout; arguments that do not match come back as isError', async () => {
    const { client, container } = await connect();
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual({ input: { text: 'hello' } });
    const jobs = await resolve(container, JobQueue).list();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ id: result._meta?.['loadout/jobId'], taskDirName: 'echo', status: 'succeeded' });

    const refused = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(refused).toMatchObject({ isError: true });
    expect(text(refused)).toMatch(/do not match .*text/);
    expect(await resolve(container, JobQueue).list()).toHaveLength(1);

    const folded = (await client.listTools()).tools.find((tool) => tool.title === 'Report')?.name as string;
    expect(text(await client.callTool({ name: folded, arguments: {} }))).toBe('report\n');
  });

  it('answers an unknown tool, or one whose schema cannot be used, with a JSON-RPC error', async () => {
    const { client, container } = await connect();
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('no tool named "nope"'),
    });
    await expect(client.callTool({ name: 'bad-schema', arguments: {} })).rejects.toMatchObject({
      message: expect.stringContaining('type: object'),
    });
    expect(await resolve(container, JobQueue).list()).toEqual([]);
  });

  it('reports a failure or a timeout with isError and the end of stderr, and cuts a huge output with a marker', async () => {
    const { client, container } = await connect();
    const failed = await client.callTool({ name: 'fails', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain('exit status 3');
    expect(text(failed)).toContain('the real error');
    expect(text(failed)).toContain('characters before this');
    expect(text(failed)).toContain('stdout:\npartial');

    const slow = await client.callTool({ name: 'slow', arguments: {} });
    expect(slow.isError).toBe(true);
    expect(text(slow)).toMatch(/^task slow failed: timed out after 1 s/);

    const chatty = await client.callTool({ name: 'chatty', arguments: {} });
    expect(text(chatty)).toMatch(/\[… output truncated: 5000 more characters are in job \d+\]$/);
    const job = await resolve(container, JobQueue).get(chatty._meta?.['loadout/jobId'] as number);
    expect(job.output).toHaveLength(MAX_RESULT_CHARS + 5000);
  });

  it('sends progress while a call runs, and a cancelled call stops its process group and fails its job', async () => {
    const { client, container } = await connect();
    const abort = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'sleeper', arguments: {} }, undefined, {
      signal: abort.signal,
      onprogress: (notice) => {
        progress.push(notice.message ?? '');
        if (notice.message?.includes('"child"') === true) abort.abort('the user pressed Escape');
      },
    });
    await expect(call).rejects.toThrow();
    const pids = JSON.parse(progress.find((message) => message.includes('"child"')) as string) as { pid: number; child: number };
    expect(progress[0]).toMatch(/^job \d+ started$/);
    const queue = resolve(container, JobQueue);
    await waitFor(async () => (await queue.list())[0]?.status === 'failed', 'the job to be settled');
    expect((await queue.list())[0]).toMatchObject({ status: 'failed', error: CANCELLED_BY_CLIENT });
    await waitFor(() => !isProcessAlive(pids.pid) && !isProcessAlive(pids.child), 'the process group to stop');
  });
});

describe('resources', () => {
  it('lists the blocks, the servers and every skill with its other files, and reads them', async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'loadout://session/skills-block',
        'loadout://session/affordance-block',
        'loadout://servers/github',
        'skill://pdf/SKILL.md',
        'skill://pdf/scripts/extract.py',
        'skill://pdf/scripts/deeper/notes.md',
        'skill://pdf/big.bin',
        'skill://quick/SKILL.md',
        'skill://local/SKILL.md',
      ]),
    );
    expect(uris.filter((uri) => uri.includes('.env') || uri.includes('leak.txt') || uri === 'skill://pdf')).toEqual([]);
    expect(uris.filter((uri) => uri === 'skill://pdf/SKILL.md')).toHaveLength(1);

    const file = await client.readResource({ uri: 'skill://pdf/scripts/extract.py' });
    expect(file.contents).toEqual([{ uri: 'skill://pdf/scripts/extract.py', mimeType: 'text/x-python', text: "print('extract')\n" }]);
    // Loadout's own URI of the manifest reads the same document as the Skills extension's, which is the one listed.
    expect((await client.readResource({ uri: 'skill://pdf' })).contents[0]).toMatchObject({ text: skill('pdf', 'Work with PDF files.') });
    expect((await client.readResource({ uri: 'skill://pdf/SKILL.md' })).contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: skill('pdf', 'Work with PDF files.'),
    });
    expect((await client.readResource({ uri: 'skill://quick/SKILL.md' })).contents[0]).toMatchObject({
      text: skill('quick', 'A single-file skill.'),
    });
    const block = await client.readResource({ uri: 'loadout://session/skills-block' });
    expect(block.contents[0]).toMatchObject({ text: expect.stringContaining('Only in this project.') });
    const server = JSON.parse(text({ content: (await client.readResource({ uri: 'loadout://servers/github' })).contents })) as Record<
      string,
      unknown
    >;
    expect(server).toMatchObject({ id: 'github', command: 'gh-mcp', env: { GITHUB_TOKEN: '[redacted]' } });
  });

  it('refuses to read outside a skill folder, hidden files, links out, bad encodings and huge files', async () => {
    const { client } = await connect();
    for (const [uri, code] of [
      ['skill://pdf/../../../outside/secret.txt', 'RESOURCE_URI_INVALID'],
      ['skill://pdf/..%2F..%2Foutside%2Fsecret.txt', 'RESOURCE_URI_INVALID'],
      ['skill://pdf/leak.txt', 'RESOURCE_REFUSED'],
      ['skill://pdf/.env', 'RESOURCE_REFUSED'],
      ['skill://pdf/big.bin', 'RESOURCE_REFUSED'],
      ['skill://pdf/missing.md', 'RESOURCE_NOT_FOUND'],
      ['skill://quick/anything.md', 'RESOURCE_NOT_FOUND'],
      ['skill://nosuch', 'RESOURCE_NOT_FOUND'],
      ['file:///etc/passwd', 'RESOURCE_URI_INVALID'],
    ] as const) {
      const refused = client.readResource({ uri });
      await expect(refused, uri).rejects.toMatchObject({ data: { code } });
      await expect(refused, uri).rejects.not.toMatchObject({ message: expect.stringContaining('TOP SECRET') });
    }
    await expect(client.readResource({ uri: 'skill://pdf/missing.md' })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('commands and subagents', () => {
  const commandsAndAgents = {
    commands: {
      'review-pr.md':
        '---\ndescription: Review a pull request\nargument-hint: "[pr-number] [focus]"\n---\nReview PR $1, looking at $2.\nAll: $ARGUMENTS\n!`gh pr diff $1`\n',
    },
    agents: { 'tester.md': '---\nname: tester\ndescription: Writes tests\ntools: Read, Write\n---\nYou write tests.\n' },
  };

  it('offers each command as a prompt that takes its arguments, and never runs what its body names', async () => {
    const { client } = await connect(workspace(commandsAndAgents));
    const { prompts } = await client.listPrompts();
    expect(prompts.find((prompt) => prompt.name === 'command:review-pr')).toEqual({
      name: 'command:review-pr',
      title: 'review-pr',
      description: 'Review a pull request',
      arguments: [{ name: 'arguments', description: 'What to pass to the command: [pr-number] [focus]', required: false }],
    });
    const prompt = await client.getPrompt({ name: 'command:review-pr', arguments: { arguments: '42 security' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review PR 42, looking at security.\nAll: 42 security\n!`gh pr diff 42`\n' } },
    ]);
    // Called without arguments, the placeholders are empty.
    expect((await client.getPrompt({ name: 'command:review-pr' })).messages[0]?.content).toMatchObject({
      text: expect.stringContaining('Review PR , looking at .'),
    });
  });

  it('offers each subagent as a resource whose text is its document', async () => {
    const { client } = await connect(workspace(commandsAndAgents));
    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === 'loadout://agents/tester')).toEqual({
      uri: 'loadout://agents/tester',
      name: 'agent:tester',
      title: 'tester',
      description: 'Writes tests',
      mimeType: 'text/markdown',
    });
    const read = await client.readResource({ uri: 'loadout://agents/tester' });
    expect(read.contents).toEqual([
      { uri: 'loadout://agents/tester', mimeType: 'text/markdown', text: commandsAndAgents.agents['tester.md'] },
    ]);
    await expect(client.readResource({ uri: 'loadout://agents/nosuch' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'loadout://agents/../x' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('prompts', () => {
  it('offers one prompt per skill whose message is the SKILL.md body', async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['skill:local', 'skill:pdf', 'skill:quick']);
    const prompt = await client.getPrompt({ name: 'skill:pdf' });
    expect(prompt).toMatchObject({
      description: 'Work with PDF files.',
      messages: [{ role: 'user', content: { type: 'text', text: '# pdf\nDo it well.\n' } }],
    });
    await expect(client.getPrompt({ name: 'skill:nosuch' })).rejects.toMatchObject({ data: { code: 'PROMPT_NOT_FOUND' } });
  });

  it('pages long lists and refuses a cursor it did not hand out', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < RESOURCE_PAGE_SIZE + 3; i += 1)
      many[`s${String(i).padStart(4, '0')}.md`] = skill(`s${String(i).padStart(4, '0')}`, `Skill ${i}.`);
    const { client } = await connect(workspace({ skills: many }));
    const first = await client.listResources();
    expect(first.resources).toHaveLength(RESOURCE_PAGE_SIZE);
    const second = await client.listResources({ cursor: first.nextCursor as string });
    expect(second.nextCursor).toBeUndefined();
    // Two blocks, one server, the skills and the project's skill.
    const all = [...first.resources, ...second.resources].map((resource) => resource.uri);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(2 + 1 + RESOURCE_PAGE_SIZE + 3 + 1);
    expect((await client.listPrompts()).prompts).toHaveLength(RESOURCE_PAGE_SIZE + 4);
    await expect(client.listResources({ cursor: 'not-mine' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.listPrompts({ cursor: '99999' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('when the session changes', () => {
  it('tells the client its tools changed when a task is switched off, and refuses the call naming who decided', async () => {
    const { client, container, project, notices } = await connect();
    await client.listTools();
    const result = await resolve(container, CapabilityStateService).setCapabilityState({ project }, [
      { kind: 'task', id: 'echo', enabled: false },
    ]);
    expect(result.errors).toEqual([]);
    await waitFor(() => notices.includes('tools'), 'tools/list_changed');
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo');
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toMatchObject({
      data: { code: 'CAPABILITY_OFF' },
      message: expect.stringMatching(/off in this session: it is switched off for the project .*decided by project-override/),
    });
    expect(await resolve(container, JobQueue).list()).toEqual([]);
    expect(notices.filter((notice) => notice !== 'tools')).toEqual([]);
  });

  it('tells a client that kept its old tools/list which task was switched off or removed since, and runs nothing', async () => {
    const { client, container, home, project } = await connect();
    // Listed once, never again: as a client that ignores list_changed (Codex) does.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'slow']));
    await resolve(container, CapabilityStateService).setCapabilityState({ project }, [{ kind: 'task', id: 'echo', enabled: false }]);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toMatchObject({
      data: { code: 'CAPABILITY_OFF' },
      message: expect.stringMatching(
        /tool "echo": task "echo" was switched off since your tools\/list: it is switched off for the project .* \(decided by project-override\); list the tools again$/,
      ),
    });
    fs.rmSync(path.join(home, 'capabilities/tasks/slow'), { recursive: true });
    await expect(client.callTool({ name: 'slow', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'TOOL_GONE' },
      message: expect.stringContaining('task "slow" was removed from this session since your tools/list'),
    });
    // A name it was never shown is plainly unknown.
    await expect(client.callTool({ name: 'never-listed', arguments: {} })).rejects.toMatchObject({ data: { code: 'TOOL_NOT_FOUND' } });
    expect(await resolve(container, JobQueue).list()).toEqual([]);
  });

  it('tells the client its resources and prompts changed when a skill is edited or added, and nothing when nothing changed', async () => {
    const { client, home, notices } = await connect();
    await client.listResources();
    await client.listPrompts();
    await client.listTools();
    await new Promise((done) => setTimeout(done, 150));
    expect(notices).toEqual([]);
    fs.writeFileSync(path.join(home, 'capabilities/skills/pdf/SKILL.md'), skill('pdf', 'Work with PDF files, now better.'));
    await waitFor(() => notices.includes('resources') && notices.includes('prompts'), 'resources and prompts list_changed');
    expect(notices).not.toContain('tools');
    expect((await client.listPrompts()).prompts.find((prompt) => prompt.name === 'skill:pdf')?.description).toBe(
      'Work with PDF files, now better.',
    );
    fs.mkdirSync(path.join(home, 'capabilities/skills/fresh'));
    fs.writeFileSync(path.join(home, 'capabilities/skills/fresh/SKILL.md'), skill('fresh', 'Just made.'));
    await waitFor(() => notices.filter((notice) => notice === 'prompts').length === 2, 'a second prompts list_changed');
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain('skill://fresh/SKILL.md');
  });
});

describe('methods beyond the SDK own', () => {
  it('answers a registered method with the session as it is, declares its capability, and codes its refusals', async () => {
    const toolNames: McpMethod = {
      method: 'example/tool-names',
      capabilities: { extensions: { 'example/tool-names': { paged: false } } },
      handle: async (params, call) => {
        if (params.prefix === 'refuse') throw new PromptNotFoundError('refuse');
        const { tools } = await call.exposure();
        return { names: tools.map((tool) => tool.name).filter((name) => name.startsWith(String(params.prefix ?? ''))) };
      },
    };
    const { client, container, project } = await connect(workspace(), [toolNames]);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      extensions: { 'example/tool-names': { paged: false } },
    });
    const answer = z.object({ names: z.array(z.string()) });
    expect(await client.request({ method: 'example/tool-names', params: { prefix: 's' } }, answer)).toEqual({ names: ['sleeper', 'slow'] });
    // The session as it is at this request: a task switched off is gone from the answer.
    await resolve(container, CapabilityStateService).setCapabilityState({ project }, [{ kind: 'task', id: 'slow', enabled: false }]);
    expect(await client.request({ method: 'example/tool-names', params: { prefix: 's' } }, answer)).toEqual({ names: ['sleeper'] });
    await expect(client.request({ method: 'example/tool-names', params: { prefix: 'refuse' } }, answer)).rejects.toMatchObject({
      code: -32602,
      data: { code: 'PROMPT_NOT_FOUND' },
    });
  });
});
