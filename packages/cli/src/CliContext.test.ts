import { Command } from 'commander';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { CliContext, type Features, type SessionFeatures } from './CliContext.js';

afterEach(removeTestdirs);

describe('CliContext.load', () => {
  it('gives a session-only command features.ts alone, and its context is typed without the later parts', async () => {
    const cli = new CliContext({ HOME: testdir({}) });
    const command = new Command('session');
    const session = cli.readsSessionsOnly(command);
    await cli.load(command);

    expect(typeof session.features.createLoadout).toBe('function');
    expect('RuntimePlanner' in session.features).toBe(false);
    expect('serveMcpOverStdio' in session.features).toBe(false);
    // Checked by the compiler (pnpm typecheck): a later part is not there to reach for.
    expectTypeOf(session.features).toEqualTypeOf<SessionFeatures>();
    expectTypeOf(session.features).not.toHaveProperty('RuntimePlanner');
    expectTypeOf(session.features).not.toHaveProperty('serveMcpOverStdio');
  });

  it('gives every other command the later parts too', async () => {
    const cli = new CliContext({ HOME: testdir({}) });
    const command = new Command('apply');
    await cli.load(command);

    expect('RuntimePlanner' in cli.features).toBe(true);
    expect(typeof cli.features.serveMcpOverStdio).toBe('function');
    expectTypeOf(cli.features).toEqualTypeOf<Features>();
  });
});
