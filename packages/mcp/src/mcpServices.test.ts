import { PassThrough } from 'node:stream';
import { dbModule } from '@loadout/db';
import { closeKernel, createKernel, resolvePlaces } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { skillsModule } from '@loadout/skills';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { serveMcpOverStdio } from './serveMcpOverStdio.js';

const containers: DependencyContainer[] = [];
afterEach(async () => {
  for (const container of containers.splice(0)) {
    closeKernel(container);
    await container.dispose();
  }
  removeTestdirs();
});

describe('loadout mcp, wired at start', () => {
  it('an app without the job scheduler is refused before a message is read, naming the service', async () => {
    const home = testdir({ capabilities: { skills: {} } });
    const container = createKernel({ places: resolvePlaces({}, home) }, [dbModule, skillsModule]);
    containers.push(container);
    const input = new PassThrough();
    const output = new PassThrough();
    input.end('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
    const failure = await serveMcpOverStdio(container, { project: null, input, output }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failure !== null && isLoadoutError(failure) && failure.code).toBe('WIRING');
    expect(failure?.message).toBe('loadout mcp needs JobScheduler (as "jobs"), which no module registers');
    expect(output.read()).toBeNull();
  });
});
