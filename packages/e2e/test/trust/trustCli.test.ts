import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { git, gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from '../server/support.js';

// The acceptance through the built command line and the HTTP server: a cloned project's
// task and a plugin's task are held until their owner trusts or approves them, every face refuses
// them with CAPABILITY_UNTRUSTED, and nothing they would run runs.

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  removeTestdirs();
});

function taskDoc(name: string, description = `The ${name} task.`): string {
  return `---\nname: ${name}\ndescription: ${description}\nimplementation: run.sh\n---\nRun it.\n`;
}

/** A LOADOUT_HOME and a repository cloned from "upstream" whose `.agents/tasks/x` writes a marker file. */
function clonedProject() {
  const work = testdir();
  const home = path.join(work, 'home');
  gitRepo(path.join(home, 'capabilities'), { skills: { own: { 'SKILL.md': skillMarkdown({ name: 'own', description: 'Mine.' }) } } });
  const upstream = gitRepo(path.join(work, 'upstream'), {
    'README.md': 'a project\n',
    '.agents': { tasks: { x: { 'TASK.md': taskDoc('x'), 'run.sh': 'touch "$(dirname "$0")/../../../marker-from-x"\necho x ran\n' } } },
  });
  const project = path.join(work, 'clone');
  git(work, 'clone', '--quiet', upstream, project);
  const marker = path.join(project, 'marker-from-x');
  const loadout = (...args: string[]) => runCli(home, args);
  return { work, home, project, marker, loadout };
}

describe('project trust', () => {
  it("refuses to run a cloned project's task until the project is trusted, then runs it; untrust holds it again", () => {
    const { project, marker, loadout } = clonedProject();
    const refused = loadout('tasks', 'run', 'x', '--project', project, '--json');
    expect(refused.status).toBe(1);
    expect(refused.json()).toEqual({
      error: { code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining(`loadout trust ${fs.realpathSync(project)}`) },
    });
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(marker)).toBe(false);

    // Listed, with why; state says held and not active.
    const listed = loadout('tasks', 'list', '--project', project, '--json').json<{ dirName: string; held?: { decidedBy: string } }[]>();
    expect(listed.find((task) => task.dirName === 'x')?.held?.decidedBy).toBe('untrusted-project');
    const state = loadout('capability', 'state', '--project', project, '--json').json<{
      capabilities: { kind: string; id: string; enabled: boolean; active: boolean; decidedBy: string; held: string | null }[];
    }>();
    expect(state.capabilities.find((entry) => entry.kind === 'task' && entry.id === 'x')).toMatchObject({
      enabled: true,
      active: false,
      decidedBy: 'untrusted-project',
      held: expect.stringContaining('not trusted'),
    });

    const trusted = loadout('trust', project, '--json');
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(trusted.json()).toMatchObject({ path: fs.realpathSync(project) });
    expect(loadout('trust', '--list', '--json').json()).toEqual([{ path: fs.realpathSync(project), trustedAt: expect.any(String) }]);
    const ran = loadout('tasks', 'run', 'x', '--project', project);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('x ran');
    expect(fs.existsSync(marker)).toBe(true);

    fs.rmSync(marker);
    expect(loadout('untrust', project).status).toBe(0);
    expect(loadout('tasks', 'run', 'x', '--project', project, '--json').json()).toMatchObject({ error: { code: 'CAPABILITY_UNTRUSTED' } });
    expect(fs.existsSync(marker)).toBe(false);
    expect(loadout('untrust', project, '--json').json()).toMatchObject({ error: { code: 'PROJECT_NOT_TRUSTED' } });
    expect(loadout('trust', '--json').status).toBe(2);
  });
});

describe('plugin consent', () => {
  it("holds a plugin's task until approved, again after an update changed its script (diff shows it), never after a text-only change", () => {
    const { work, home, loadout } = clonedProject();
    const upstream = gitRepo(path.join(work, 'acme'), {
      tasks: { greet: { 'TASK.md': taskDoc('greet'), 'run.sh': 'echo hello v1\n' } },
      skills: { tone: { 'SKILL.md': skillMarkdown({ name: 'tone', description: 'Be kind.' }) } },
      servers: {
        'acme.json': JSON.stringify({
          name: 'acme',
          command: 'node',
          args: ['server.js'],
          env: { ACME_TOKEN: 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' },
        }),
      },
    });
    const installed = loadout('plugins', 'install', pathToFileURL(upstream).href, '--name', 'acme');
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('task/greet: bash tasks/greet/run.sh  [held: unapproved-plugin]');
    expect(installed.stdout).toContain('server/acme: node server.js  [held: unapproved-plugin]');
    expect(installed.stdout).toContain('held until you approve: loadout plugins approve acme');
    expect(loadout('tasks', 'run', 'greet', '--json').json()).toMatchObject({
      error: { code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining('plugins approve acme') },
    });

    const audit = loadout('audit', '--json').json<
      { kind: string; id: string; owner: string; status: string; findings: { code: string; message: string }[] }[]
    >();
    expect(audit.map((entry) => [`${entry.kind}/${entry.id}`, entry.owner, entry.status])).toEqual([
      ['server/acme', 'plugin acme', 'held'],
      ['task/greet', 'plugin acme', 'held'],
    ]);
    expect(audit[0]?.findings.map((finding) => finding.code)).toEqual(['secret-in-definition']);
    expect(JSON.stringify(audit)).not.toContain('ghp_0123456789');

    const approved = loadout('plugins', 'approve', 'acme', '--json');
    expect(approved.status, approved.stderr).toBe(0);
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('hello v1\n');

    gitCommit(upstream, { tasks: { greet: { 'run.sh': 'echo hello v2\n' } } }, 'greet louder');
    const update = loadout('plugins', 'update', 'acme');
    expect(update.status, update.stderr).toBe(0);
    expect(update.stdout).toContain('held until approved (1): task/greet; see loadout plugins diff acme');
    expect(loadout('tasks', 'run', 'greet', '--json').json()).toMatchObject({
      error: { code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining('plugins diff acme') },
    });
    const diff = loadout('plugins', 'diff', 'acme', '--json').json<{ from: string; to: string; held: { id: string }[]; diff: string }>();
    expect(diff.held.map((item) => item.id)).toEqual(['greet']);
    expect(diff.diff).toContain('-echo hello v1');
    expect(diff.diff).toContain('+echo hello v2');
    expect(diff.from).not.toBe(diff.to);
    expect(loadout('plugins', 'approve', 'acme').status).toBe(0);
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('hello v2\n');

    // Text only: nothing is held again.
    gitCommit(upstream, { skills: { tone: { 'SKILL.md': skillMarkdown({ name: 'tone', description: 'Be very kind.' }) } } }, 'words');
    expect(loadout('plugins', 'update', 'acme', '--json').json()).toEqual([
      expect.objectContaining({ name: 'acme', status: 'updated', held: [] }),
    ]);
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('hello v2\n');
    expect(loadout('plugins', 'diff', 'acme', '--json').json<{ held: unknown[]; diff: string }>()).toMatchObject({ held: [], diff: '' });
    expect(fs.existsSync(path.join(home, 'plugins', 'acme'))).toBe(true);
  });

  it('approves at install with --yes, for scripts', () => {
    const { work, loadout } = clonedProject();
    const upstream = gitRepo(path.join(work, 'acme'), { tasks: { greet: { 'TASK.md': taskDoc('greet'), 'run.sh': 'echo hi\n' } } });
    const installed = loadout('plugins', 'install', pathToFileURL(upstream).href, '--name', 'acme', '--yes', '--json');
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.json()).toMatchObject({ name: 'acme', approved: true, runnable: [{ kind: 'task', id: 'greet', status: 'approved' }] });
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('hi\n');
  });
});

describe('HTTP', () => {
  it("refuses a held task's run and a pipeline with a held step (409, nothing queued); trusting over HTTP lets them run", async () => {
    const server = await TestServer.start({
      tree: { capabilities: {}, plugins: {}, project: { '.agents': { tasks: { x: { 'TASK.md': taskDoc('x'), 'run.sh': 'echo x\n' } } } } },
    });
    servers.push(server);
    const project = path.join(server.home, 'project');
    const run = await server.request('POST', '/api/tasks/x/runs', { body: { project, input: {} } });
    expect(run).toMatchObject({ status: 409, body: { error: { code: 'CAPABILITY_UNTRUSTED' } } });
    const pipeline = await server.request('POST', '/api/pipelines', { body: { project, steps: [{ task: 'x', input: {} }] } });
    expect(pipeline).toMatchObject({ status: 409, body: { error: { code: 'CAPABILITY_UNTRUSTED' } } });
    expect((await server.request('GET', '/api/jobs')).body).toEqual([]);

    expect((await server.request('POST', '/api/trust', { body: { project }, token: null })).status).toBe(401);
    expect(await server.request('POST', '/api/trust', { body: { project } })).toMatchObject({
      status: 201,
      body: { path: fs.realpathSync(project) },
    });
    const queued = await server.request('POST', '/api/tasks/x/runs', { body: { project, input: {} } });
    expect(queued.status).toBe(202);
    const job = await server.waitForJob((queued.body as { job: { id: number } }).job.id);
    expect(job).toMatchObject({ status: 'succeeded', output: 'x\n' });
    expect(await server.request('DELETE', `/api/trust?project=${encodeURIComponent(project)}`)).toMatchObject({
      status: 200,
      body: { trusted: false },
    });
    expect((await server.request('POST', '/api/tasks/x/runs', { body: { project, input: {} } })).status).toBe(409);
  });
});
