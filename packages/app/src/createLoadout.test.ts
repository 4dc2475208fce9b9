import path from 'node:path';
import { Migrations, PostgresMigrations } from '@loadout/db';
import {
  CapabilityFilters,
  CapabilityHolds,
  CapabilityKinds,
  ChangeStamps,
  closeKernel,
  loadModules,
  PluginSource,
  resolveAll,
  resolvePlaces,
  SessionLoader,
  SessionSections,
  type Token,
} from '@loadout/kernel';
import { skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { JobQueue, JobScheduler } from '@loadout/jobs';
import { CapabilityLevels } from '@loadout/levels';
import { MarketplaceManager, PluginManager } from '@loadout/plugins';
import { RuntimeApplier, RuntimePlanner } from '@loadout/runtimes';
import { CapabilityStateService } from '@loadout/state';
import { TrustService } from '@loadout/trust';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoadout, loadoutModules } from './createLoadout.js';

afterEach(removeTestdirs);

// Everything a session reads. A module the app loads later must contribute to none of them:
// `loadout session` makes its container without those modules.
const sessionContributions: readonly Token<unknown>[] = [
  CapabilityKinds,
  CapabilityFilters,
  CapabilityHolds,
  SessionSections,
  Migrations,
  PostgresMigrations,
  ChangeStamps,
  PluginSource,
];

/** A contribution as it can be compared across containers: its class, or its data without functions. */
function described(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value.constructor.name;
  return JSON.parse(JSON.stringify(value));
}

function container(home: string): DependencyContainer {
  return createLoadout({ places: resolvePlaces({}, home) });
}

describe('the app made for a session only, and whole', () => {
  it('has every contribution a session reads either way, and the same session; only the whole one can apply', async () => {
    const home = testdir({
      capabilities: { skills: { pdf: { 'SKILL.md': skillMarkdown({ name: 'pdf', description: 'Read PDFs.' }) } } },
      work: { '.agents': { skills: { notes: { 'SKILL.md': skillMarkdown({ name: 'notes', description: 'Keep notes.' }) } } } },
    });
    // Made before the later modules' code loads, as `loadout session` makes it.
    const sessionOnly = container(home);
    await loadModules(loadoutModules);
    const whole = container(home);
    try {
      for (const contribution of sessionContributions) {
        expect(resolveAll(sessionOnly, contribution).map(described), contribution.description).toEqual(
          resolveAll(whole, contribution).map(described),
        );
        expect(sessionOnly.isRegistered(contribution, true), contribution.description).toBe(whole.isRegistered(contribution, true));
      }
      const project = path.join(home, 'work');
      const [a, b] = await Promise.all([
        sessionOnly.resolve(SessionLoader).open({ project }),
        whole.resolve(SessionLoader).open({ project }),
      ]);
      expect(a.toJSON()).toEqual(b.toJSON());
      expect((a.toJSON().skills as { id: string }[]).map((skill) => skill.id)).toEqual(['notes', 'pdf']);
      a.dispose();
      b.dispose();

      // The later modules, and the later parts of the modules made of two: the job queue's runner,
      // the levels mover, the plugin and marketplace managers, the state and trust services.
      const later = {
        RuntimeApplier,
        RuntimePlanner,
        JobQueue,
        JobScheduler,
        CapabilityLevels,
        PluginManager,
        MarketplaceManager,
        CapabilityStateService,
        TrustService,
      };
      for (const [name, service] of Object.entries(later)) {
        expect(whole.isRegistered(service, true), name).toBe(true);
        expect(sessionOnly.isRegistered(service, true), name).toBe(false);
      }
    } finally {
      for (const made of [sessionOnly, whole]) {
        closeKernel(made);
        await made.dispose();
      }
    }
  });
});
