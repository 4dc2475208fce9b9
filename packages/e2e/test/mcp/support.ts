import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_ENTRY, runCli } from '@loadout/cli/testing';
import { JobQueue, type JobSummary } from '@loadout/jobs';
import { echoTask, taskTree } from '@loadout/jobs/testing';
import { closeKernel, resolve } from '@loadout/kernel';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createTestContainer, placesIn, pluginTree, registerPlugin, TestServer, TOKEN, workspaceTree } from '../server/support.js';

/** Prints its pid and its child's on one line, then waits to be stopped. */
export const sleeperTask = `
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
process.stdout.write(JSON.stringify({ pid: process.pid, child: child.pid }) + '\\n');
setTimeout(() => {}, 60000);
`;

/**
 * The owner's workspace of the server tests, plus a folder skill with another file, a task that
 * waits to be stopped, a task that may run as an MCP task and declares its output, plugin `acme` (a task, a skill, a server) and a project with its own task
 * and skill and a `src/` folder to work in.
 */
export function mcpTree(): TreeDescription {
  const base = workspaceTree({
    sleeper: taskTree({ name: 'Sleeper', implementation: 'run.mjs' }, { 'run.mjs': sleeperTask }),
    // Runs as an MCP task for a client with the Tasks extension; its printed JSON is its structured output.
    later: taskTree(
      {
        name: 'Later',
        implementation: 'run.mjs',
        'mcp-task': 'optional',
        output: { properties: { input: { type: 'object' } }, required: ['input'] },
      },
      { 'run.mjs': echoTask },
    ),
  });
  const capabilities = base.capabilities as TreeDescription;
  return {
    ...base,
    capabilities: {
      ...capabilities,
      skills: {
        ...(capabilities.skills as TreeDescription),
        guide: {
          'SKILL.md': '---\nname: guide\ndescription: How to use the thing.\n---\n# Guide\nRead reference/usage.md first.\n',
          reference: { 'usage.md': '# Usage\nCall it with care.\n' },
        },
      },
    },
    plugins: { acme: pluginTree('acme') },
    project: {
      '.agents': {
        tasks: {
          local: taskTree({ name: 'Local', implementation: 'run.sh' }, { 'run.sh': 'cat >/dev/null\necho "local to the project"\n' }),
        },
        skills: { 'project-skill': { 'SKILL.md': '---\nname: project-skill\ndescription: Only here.\n---\nProject body.\n' } },
      },
      src: {},
    },
  };
}

/** An MCP client connected to Loadout one way or another, with what a test needs around it. */
export interface McpHarness {
  readonly client: Client;
  readonly home: string;
  readonly project: string;
  /** `tools`, `resources`, `prompts`: each list_changed notification as it arrived. */
  readonly notices: string[];
  /** Every job in the workspace's database. */
  jobs(): Promise<JobSummary[]>;
  disablePlugin(name: string): Promise<void>;
  /** Switches a capability off for the project only. */
  switchOffForProject(kind: string, id: string): Promise<void>;
  /** Trusts the project and approves the plugin `acme`: their tasks may run. */
  trustAll(): Promise<void>;
  close(): Promise<void>;
}

/** How a harness starts: `trusted` (the default) trusts the project and approves `acme` before the client connects. */
export interface HarnessOptions {
  readonly trusted?: boolean;
}

function newClient(notices: string[], roots: string[]): Client {
  const client = new Client(
    { name: 'loadout-e2e', version: '1.0.0' },
    { capabilities: roots.length > 0 ? { roots: { listChanged: true } } : {} },
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices.push('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void notices.push('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void notices.push('prompts'));
  if (roots.length > 0) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) })),
    }));
  }
  return client;
}

/**
 * `loadout mcp` over stdio, the built command, started in the project's `src/` folder with no
 * `--project` (so the project is found from the working folder). Changes go through the command
 * line too: another process writes the database under the server's feet.
 */
export async function connectStdio(options: HarnessOptions = {}): Promise<McpHarness & { readonly transport: StdioClientTransport }> {
  const home = testdir(mcpTree());
  const places = placesIn(home);
  const setup = createTestContainer(places, false);
  await registerPlugin(setup, 'acme', false);
  closeKernel(setup);
  await setup.dispose();
  const project = path.join(home, 'project');
  const cli = (args: string[]): void => {
    const run = runCli(home, [...args, '--json']);
    if (run.status !== 0) throw new Error(`loadout ${args.join(' ')}: ${run.stderr}`);
  };
  const trustAll = async (): Promise<void> => {
    cli(['trust', project]);
    cli(['plugins', 'approve', 'acme']);
  };
  if (options.trusted !== false) await trustAll();
  const notices: string[] = [];
  const client = newClient(notices, []);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_ENTRY, 'mcp'],
    cwd: path.join(project, 'src'),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: home },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return {
    client,
    transport,
    home,
    project,
    notices,
    jobs: async () => {
      const reader = createTestContainer(places, false);
      try {
        return await resolve(reader, JobQueue).list({ limit: 500 });
      } finally {
        closeKernel(reader);
        await reader.dispose();
      }
    },
    disablePlugin: async (name) => cli(['plugins', 'disable', name]),
    switchOffForProject: async (kind, id) => cli(['capability', 'set', `${kind}/${id}`, '--disable', '--project', project]),
    trustAll,
    close: () => client.close(),
  };
}

/** MCP over Streamable HTTP at `/mcp` of a test server; the client offers the project as its root. */
export async function connectHttp(
  options: { roots?: boolean } & HarnessOptions = {},
): Promise<McpHarness & { readonly server: TestServer }> {
  const server = await TestServer.start({ tree: mcpTree(), plugins: ['acme'], approvePlugins: false });
  const project = path.join(server.home, 'project');
  const notices: string[] = [];
  const ok = async (method: string, url: string, body?: unknown): Promise<unknown> => {
    const answer = await server.request(method, url, body === undefined ? {} : { body });
    if (answer.status >= 400) throw new Error(`${method} ${url}: ${answer.text}`);
    return answer.body;
  };
  const trustAll = async (): Promise<void> => {
    await ok('POST', '/api/trust', { project });
    await ok('POST', '/api/plugins/acme/approve');
  };
  if (options.trusted !== false) await trustAll();
  const client = newClient(notices, options.roots === false ? [] : [project]);
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.server.port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return {
    client,
    server,
    home: server.home,
    project,
    notices,
    jobs: async () => (await ok('GET', '/api/jobs?limit=500')) as JobSummary[],
    disablePlugin: async (name) => void (await ok('POST', `/api/plugins/${name}/disable`)),
    switchOffForProject: async (kind, id) => {
      const answer = (await ok('POST', '/rpc', {
        jsonrpc: '2.0',
        id: 1,
        method: 'capability.set',
        params: { project, capabilities: [{ kind, id, enabled: false }] },
      })) as {
        result?: { errors: string[] };
      };
      if (answer.result === undefined || answer.result.errors.length > 0) throw new Error(`capability.set: ${JSON.stringify(answer)}`);
    },
    trustAll,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export async function waitFor(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

/**
 * For a test file: closes every harness it opened (and removes the test folders) after each test.
 * Returns what to wrap each harness in as it is opened.
 */
export function closeAfterEach(): <H extends McpHarness>(harness: Promise<H>) => Promise<H> {
  const open: McpHarness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
    removeTestdirs();
  });
  return async (harness) => {
    const ready = await harness;
    open.push(ready);
    return ready;
  };
}
