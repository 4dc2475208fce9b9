import { Database, dbModule } from '@loadout/db';
import { removeTestdirs } from '@loadout/files/testing';
import { createKernel, loadModules, resolve } from '@loadout/kernel';
import { UsageStore } from '@loadout/usage';
import { usageModule } from '@loadout/usage/module';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { ListingUseReader } from '../src/listing/ListingUses.js';
import { runtimesModule } from '../src/runtimesModule.js';
import { closeLoadouts, machine, openLoadout } from '../src/testing/runtimeFixture.js';

const opened: DependencyContainer[] = [];
afterEach(() => {
  for (const container of opened.splice(0)) resolve(container, Database).close();
  closeLoadouts();
  removeTestdirs();
});

/** The runtimes module beside the usage ledger, as the command line has them: the ledger's store in the real SQLite file. */
async function withLedger(): Promise<DependencyContainer> {
  const modules = [dbModule, usageModule, { name: 'runtimes', now: runtimesModule }];
  await loadModules(modules);
  const container = createKernel({ places: machine().places }, modules);
  opened.push(container);
  return container;
}

const use = (runtime: string, name: string, at: number, project: string | null = null) => ({
  at,
  runtime,
  project,
  kind: 'skill' as const,
  name,
  server: null,
  event: 'invoked' as const,
  session: null,
  source: 'served' as const,
});

describe('the listing planner reads recent use from the ledger', () => {
  it("answers each runtime's last use of each skill, over every project, and skills only", async () => {
    const container = await withLedger();
    await resolve(container, UsageStore).record([
      use('claude-code', 'pdf', 1_000, '/work/a'),
      use('claude-code', 'pdf', 3_000, '/work/b'),
      use('claude-code', 'charts', 2_000),
      use('codex', 'lint', 5_000),
      { ...use('claude-code', 'deploy', 9_000), kind: 'task' },
    ]);
    const uses = await resolve(container, ListingUseReader).read(['claude-code']);
    expect(uses.problem).toBeNull();
    expect([...uses.byRuntime.keys()]).toEqual(['claude-code']);
    expect(Object.fromEntries(uses.byRuntime.get('claude-code') ?? [])).toEqual({ pdf: 3_000, charts: 2_000 });
    // No runtime that ranks by use: the ledger is not asked.
    expect((await resolve(container, ListingUseReader).read([])).byRuntime.size).toBe(0);
  });

  it('says a ledger that cannot be read instead of failing, and reads nothing without the usage module', async () => {
    const container = await withLedger();
    resolve(container, Database).exec('DROP TABLE usage_events');
    const uses = await resolve(container, ListingUseReader).read(['claude-code']);
    expect(uses.byRuntime.size).toBe(0);
    expect(uses.problem).toMatch(/^the usage ledger could not be read \(.*usage_events.*\); listed as if no skill was used$/);

    const without = openLoadout(machine());
    expect(await resolve(without, ListingUseReader).read(['claude-code'])).toEqual({ byRuntime: new Map(), problem: null });
  });
});
