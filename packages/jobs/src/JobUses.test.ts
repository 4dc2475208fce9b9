import { Database, dbModule } from '@loadout/db';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { createKernel, loadModules, resolve, resolvePlaces } from '@loadout/kernel';
import { UsageStore } from '@loadout/usage';
import { usageModule } from '@loadout/usage/module';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { JobQueue } from './JobQueue.js';
import { JobUses } from './JobUses.js';
import { jobsModule } from './jobsModule.js';

const modules = [dbModule, jobsModule, usageModule];
const opened: DependencyContainer[] = [];
afterEach(() => {
  for (const container of opened.splice(0)) resolve(container, Database).close();
  removeTestdirs();
});

/** The job queue and the usage ledger in one real SQLite file, as a serving process has them. */
async function open(): Promise<DependencyContainer> {
  await loadModules(modules);
  const container = createKernel({ places: resolvePlaces({}, testdir({ capabilities: {} })) }, modules);
  opened.push(container);
  return container;
}

describe('a run in the usage ledger, counted at its end', () => {
  it('records a job that ended unless MCP started it (the MCP layer counts those), and a run that is not a job', async () => {
    const container = await open();
    const queue = resolve(container, JobQueue);
    const uses = resolve(container, JobUses);
    const ended = async (origin: 'http' | 'mcp' | undefined, task: string, succeeded: boolean) => {
      const job = await queue.enqueue({
        taskDirName: task,
        project: '/work/app',
        maxAttempts: 1,
        ...(origin === undefined ? {} : { origin }),
      });
      const running = await queue.claimById(job.id, 'w');
      uses.changed(running ?? job);
      const outcome = { succeeded, exitCode: succeeded ? 0 : 1, output: '', stderr: '', error: null, retryable: false };
      uses.changed((await queue.finish(job.id, 'w', outcome, 0)) ?? job);
    };
    await ended('http', 'echo', true);
    await ended('http', 'fails', false);
    await ended('mcp', 'echo', true);
    await ended(undefined, 'echo', true);
    uses.ran({ taskDirName: 'echo', project: '/work/app', succeeded: true }, 'cli');
    await uses.flush();

    const tallies = await resolve(container, UsageStore).tally({ since: 0 });
    expect(
      tallies
        .map(({ runtime, project, kind, name, invoked, failed }) => ({ runtime, project, kind, name, invoked, failed }))
        .sort((a, b) => `${a.runtime}/${a.name}`.localeCompare(`${b.runtime}/${b.name}`)),
    ).toEqual([
      { runtime: 'loadout-cli', project: '/work/app', kind: 'task', name: 'echo', invoked: 1, failed: 0 },
      { runtime: 'loadout-http', project: '/work/app', kind: 'task', name: 'echo', invoked: 1, failed: 0 },
      { runtime: 'loadout-http', project: '/work/app', kind: 'task', name: 'fails', invoked: 1, failed: 1 },
    ]);
  });
});
