import http from 'node:http';
import path from 'node:path';
import { createLoadout, loadoutModules } from '@loadout/app';
import { configureJobWorkers, type Job, JobQueue } from '@loadout/jobs';
import { echoTask, runNotificationCatalogue, taskTree } from '@loadout/jobs/testing';
import { keptReadsModule } from '@loadout/kept-reads';
import { closeKernel, createKernel, loadModules, type LoadoutModule, type Places, resolve } from '@loadout/kernel';
import { testdir, type TreeDescription } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { type RunningServer, startServer } from '@loadout/server';
import { TrustService } from '@loadout/trust';
import type { DependencyContainer } from 'tsyringe';

// `loadout serve` loads the modules' later parts before it makes its container; so do these tests.
await loadModules(loadoutModules);

export const TOKEN = 'test-token-0123456789abcdef';

/** A workspace: the owner's capabilities with a few tasks, skills and the run catalogue. */
export function workspaceTree(extraTasks: Record<string, TreeDescription> = {}): TreeDescription {
  return {
    capabilities: {
      skills: { 'owner-skill': { 'SKILL.md': '---\nname: owner-skill\ndescription: The owner skill.\n---\nBody.\n' } },
      servers: { 'owner-mcp.json': JSON.stringify({ name: 'owner-mcp', command: 'echo', args: [] }) },
      notifications: { 'loadout-runs.json': runNotificationCatalogue },
      tasks: {
        echo: taskTree({ name: 'Echo', implementation: 'run.mjs' }, { 'run.mjs': echoTask }),
        fails: taskTree({ name: 'Fails', implementation: 'run.sh' }, { 'run.sh': 'echo "partial"\necho "it broke" >&2\nexit 4\n' }),
        ...extraTasks,
      },
    },
    plugins: {},
  };
}

/** A plugin folder under `plugins/<name>` with a task, a skill and a server. */
export function pluginTree(name: string): TreeDescription {
  return {
    tasks: {
      [`${name}-task`]: taskTree({ name: `${name} task`, implementation: 'run.sh' }, { 'run.sh': `cat >/dev/null\necho "from ${name}"\n` }),
    },
    skills: { [`${name}-skill`]: { 'SKILL.md': `---\nname: ${name}-skill\ndescription: A skill of ${name}.\n---\nBody.\n` } },
    servers: { [`${name}-mcp.json`]: JSON.stringify({ name: `${name}-mcp`, url: 'https://example.invalid/mcp' }) },
  };
}

export function placesIn(home: string): Places {
  return {
    home,
    capabilitiesDir: path.join(home, 'capabilities'),
    pluginsDir: path.join(home, 'plugins'),
    dataDir: path.join(home, '.loadout'),
  };
}

/** The app's root container, exactly as `loadout serve` builds it. */
export function createTestContainer(places: Places, watch = true): DependencyContainer {
  return createLoadout({ places, watch });
}

/**
 * Records an installed plugin whose folder is already under `plugins/` (no git involved), approved
 * as it is (its tasks and servers may run) unless `approved` is false.
 */
export async function registerPlugin(container: DependencyContainer, name: string, approved = true): Promise<void> {
  resolve(container, PluginRegistry).add({ name, url: `https://example.invalid/${name}.git`, ref: null, commit: 'a'.repeat(40) });
  if (approved && container.isRegistered(TrustService, true)) await resolve(container, TrustService).approvePlugin(name);
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Sent as is, without JSON encoding. */
  readonly raw?: string;
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
}

/** A test server on a free port with its own workspace, container and token. */
export class TestServer {
  private constructor(
    readonly home: string,
    readonly places: Places,
    readonly container: DependencyContainer,
    readonly server: RunningServer,
  ) {}

  /** `modules` replaces the app's module list (`loadoutModules` plus a test's own, say). */
  static async start(
    options: {
      tree?: TreeDescription;
      plugins?: string[];
      approvePlugins?: boolean;
      workers?: number;
      retryBaseMs?: number;
      modules?: readonly LoadoutModule[];
    } = {},
  ): Promise<TestServer> {
    const home = testdir(options.tree ?? workspaceTree());
    const places = placesIn(home);
    const container =
      options.modules === undefined ? createTestContainer(places) : createKernel({ places }, [keptReadsModule(), ...options.modules]);
    for (const name of options.plugins ?? []) await registerPlugin(container, name, options.approvePlugins !== false);
    configureJobWorkers(container, { count: options.workers ?? 2, retryBaseMs: options.retryBaseMs ?? 50, pollMs: 200 });
    const server = await startServer(container, { port: 0, token: TOKEN, log: () => undefined });
    return new TestServer(home, places, container, server);
  }

  async close(): Promise<void> {
    await this.server.close();
    closeKernel(this.container);
    await this.container.dispose();
  }

  /** A request with the token by default; `token: null` sends none. */
  request(method: string, url: string, options: RequestOptions = {}): Promise<Answer> {
    return sendRequest(this.server.port, method, url, options);
  }

  /** Waits until the job is finished and returns it. */
  async waitForJob(id: number, timeoutMs = 20_000): Promise<Job> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await resolve(this.container, JobQueue).get(id);
      if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'skipped') return job;
      if (Date.now() > deadline) throw new Error(`job ${id} is still ${job.status}`);
      await new Promise((done) => setTimeout(done, 25));
    }
  }
}

export function sendRequest(port: number, method: string, url: string, options: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization ??= `Bearer ${token}`;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((done, fail) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: url, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        done({ status: response.statusCode ?? 0, body, text, headers: response.headers });
      });
    });
    request.on('error', fail);
    request.end(payload);
  });
}

/** One Server-Sent Events response read to its end (or until `until` says stop). */
export function readEventStream(
  port: number,
  url: string,
  until: (events: { event: string; data: unknown }[]) => boolean = () => false,
): Promise<{ event: string; data: unknown }[]> {
  return new Promise((done, fail) => {
    const events: { event: string; data: unknown }[] = [];
    const request = http.request(
      { host: '127.0.0.1', port, method: 'GET', path: url, headers: { authorization: `Bearer ${TOKEN}` } },
      (response) => {
        if (response.statusCode !== 200) {
          fail(new Error(`stream answered ${response.statusCode}`));
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          buffer += text;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = block
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .join('\n');
            if (event !== undefined) events.push({ event, data: JSON.parse(data) as unknown });
          }
          if (until(events)) {
            request.destroy();
            done(events);
          }
        });
        response.on('end', () => done(events));
      },
    );
    request.on('error', (error) => (events.length > 0 ? done(events) : fail(error)));
    request.end();
  });
}
