import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job, Pipeline } from '@loadout/jobs';
import { taskTree } from '@loadout/jobs/testing';
import { pluginTree, TestServer, workspaceTree } from './support.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const unwrap = `
import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.input));
`;
const countWords = `input=$(cat)
text=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).text))')
printf '{"words":%s}' "$(printf '%s' "$text" | wc -w | tr -d ' ')"
`;
const mark = `
import fs from 'node:fs';
const { n } = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(process.env.LOADOUT_PROJECT + '/marks.txt', n + '\\n');
process.stdout.write(String(n));
`;
const flaky = `
import fs from 'node:fs';
const file = process.env.LOADOUT_PROJECT + '/tries.txt';
const tries = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) + 1 : 1;
fs.writeFileSync(file, String(tries));
if (tries < 2) { console.error('not yet'); process.exit(1); }
process.stdout.write('made it on try ' + tries);
`;

function scenarioTree() {
  return {
    ...workspaceTree({
      unwrap: taskTree({ name: 'Unwrap', implementation: 'run.mjs' }, { 'run.mjs': unwrap }),
      'count-words': taskTree({ name: 'Count words', implementation: 'run.sh' }, { 'run.sh': countWords }),
      mark: taskTree({ name: 'Mark', implementation: 'run.mjs' }, { 'run.mjs': mark }),
      flaky: taskTree({ name: 'Flaky', implementation: 'run.mjs', retries: 2 }, { 'run.mjs': flaky }),
      sleepy: taskTree({ name: 'Sleepy', implementation: 'run.sh', timeout: 1 }, { 'run.sh': 'sleep 30\n' }),
    }),
    plugins: { acme: pluginTree('acme') },
  };
}

async function run(s: TestServer, task: string, body: unknown = {}): Promise<number> {
  const answer = await s.request('POST', `/api/tasks/${task}/runs`, { body });
  expect(answer.status).toBe(202);
  const { job } = answer.body as { job: { id: number; status: string } };
  expect(job.status).toBe('queued');
  return job.id;
}

async function pipelineDone(s: TestServer, id: number): Promise<Pipeline> {
  for (let i = 0; i < 400; i += 1) {
    const pipeline = (await s.request('GET', `/api/pipelines/${id}`)).body as Pipeline;
    if (pipeline.status === 'succeeded' || pipeline.status === 'failed') return pipeline;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`pipeline ${id} did not finish`);
}

describe('acceptance, through real HTTP', () => {
  it("1. runs an owner task and a plugin task and records each one's output and exit status", async () => {
    server = await TestServer.start({ tree: scenarioTree(), plugins: ['acme'] });
    const owner = await run(server, 'echo', { input: { text: 'hello' } });
    const plugin = await run(server, 'acme-task');
    const failing = await run(server, 'fails');
    for (const id of [owner, plugin, failing]) await server.waitForJob(id);

    const read = async (id: number): Promise<Job> => (await server!.request('GET', `/api/jobs/${id}`)).body as Job;
    expect(await read(owner)).toMatchObject({
      id: owner,
      taskDirName: 'echo',
      status: 'succeeded',
      exitCode: 0,
      output: '{"input":{"text":"hello"}}\n',
    });
    expect(await read(plugin)).toMatchObject({ taskDirName: 'acme-task', status: 'succeeded', exitCode: 0, output: 'from acme\n' });
    expect(await read(failing)).toMatchObject({
      taskDirName: 'fails',
      status: 'failed',
      exitCode: 4,
      output: 'partial\n',
      stderr: 'it broke\n',
      error: 'exit status 4',
    });
  });

  it('2. a three-step pipeline passes each output on to the next step', async () => {
    server = await TestServer.start({ tree: scenarioTree(), plugins: [] });
    const answer = await server.request('POST', '/api/pipelines', {
      body: { steps: [{ task: 'echo', input: { text: 'one two three four' } }, { task: 'unwrap' }, { task: 'count-words' }] },
    });
    expect(answer).toMatchObject({ status: 202, body: { pipeline: { id: expect.any(Number), status: 'queued' } } });
    const pipeline = await pipelineDone(server, (answer.body as { pipeline: { id: number } }).pipeline.id);
    expect(pipeline.status).toBe('succeeded');
    expect(pipeline.jobs.map((job) => [job.step, job.taskDirName, job.status])).toEqual([
      [0, 'echo', 'succeeded'],
      [1, 'unwrap', 'succeeded'],
      [2, 'count-words', 'succeeded'],
    ]);
    expect(pipeline.jobs[1]?.input).toEqual({ input: { text: 'one two three four' } });
    expect(pipeline.jobs[2]?.input).toEqual({ text: 'one two three four' });
    expect(JSON.parse(pipeline.jobs[2]?.output ?? '')).toEqual({ words: 4 });
  });

  it('2b. a failed step fails the pipeline and skips the rest', async () => {
    server = await TestServer.start({ tree: scenarioTree(), plugins: [] });
    const answer = await server.request('POST', '/api/pipelines', {
      body: { steps: [{ task: 'echo' }, { task: 'fails' }, { task: 'echo' }] },
    });
    const pipeline = await pipelineDone(server, (answer.body as { pipeline: { id: number } }).pipeline.id);
    expect(pipeline.status).toBe('failed');
    expect(pipeline.jobs.map((job) => job.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(pipeline.jobs[2]?.attempts).toBe(0);
  });

  it('3. fifty runs submitted at once all complete exactly once, with unique job ids', async () => {
    server = await TestServer.start({ tree: scenarioTree(), plugins: [] });
    const project = testdir();
    const s = server;
    const ids = await Promise.all(Array.from({ length: 50 }, (_, n) => run(s, 'mark', { input: { n }, project })));
    expect(new Set(ids).size).toBe(50);
    const jobs = await Promise.all(ids.map((id) => s.waitForJob(id, 60_000)));
    expect(jobs.every((job) => job.status === 'succeeded' && job.attempts === 1)).toBe(true);
    expect(jobs.map((job) => Number(job.output)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    const marks = fs.readFileSync(path.join(project, 'marks.txt'), 'utf8').trim().split('\n').map(Number);
    expect(marks).toHaveLength(50);
    expect(new Set(marks).size).toBe(50);
  });

  it('retries a task that declares retries, with backoff, and stops a task at its timeout', async () => {
    server = await TestServer.start({ tree: scenarioTree(), plugins: [] });
    const project = testdir();
    const flakyJob = await server.waitForJob(await run(server, 'flaky', { project }));
    expect(flakyJob).toMatchObject({ status: 'succeeded', attempts: 2, maxAttempts: 3, output: 'made it on try 2' });
    const sleepy = await server.waitForJob(await run(server, 'sleepy'));
    expect(sleepy).toMatchObject({ status: 'failed', exitCode: null, error: expect.stringMatching(/^timed out after/) });
  });
});
