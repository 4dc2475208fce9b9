import { describe, expect, it } from 'vitest';
import { createKernel } from './createKernel.js';
import { loadLaterModules, type LoadoutModule, LoadoutModules, loadModules } from './LoadoutModule.js';
import { resolvePlaces } from './Places.js';
import { contribute, resolveAll, token } from './token.js';

const Things = token<string>('test.things');
const kernel = (modules: readonly LoadoutModule[]) => createKernel({ places: resolvePlaces({}, '/nowhere') }, modules);

/** A module whose later part counts its loads in `loads.count`. */
function splitModule(name: string, loads: { count: number }): LoadoutModule {
  return {
    name,
    now: (c) => contribute(c, Things, `${name} now`),
    later: async () => {
      loads.count += 1;
      return (c) => contribute(c, Things, `${name} later`);
    },
  };
}

describe('the module shape', () => {
  it('refuses a registration function passed where a module object belongs, naming it (the type checker lets one through)', () => {
    const agentsRegistration = (c: Parameters<NonNullable<LoadoutModule['now']>>[0]) => contribute(c, Things, 'never');
    expect(() => kernel([agentsRegistration as unknown as LoadoutModule])).toThrow(
      /module agentsRegistration is not a LoadoutModule object/,
    );
  });

  it('registers what loads now when the container is made, and the later part only when asked, once', async () => {
    const loads = { count: 0 };
    const modules: LoadoutModule[] = [
      { name: 'eager', now: (c) => contribute(c, Things, 'eager') },
      splitModule('split', loads),
      { name: 'whole', later: async () => ((loads.count += 1), (c) => contribute(c, Things, 'whole later')) },
    ];
    const container = kernel(modules);
    // A session-only process: only the parts that load now, no later code loaded.
    expect(resolveAll(container, Things)).toEqual(['eager', 'split now']);
    expect(loads.count).toBe(0);
    expect(resolveAll(container, LoadoutModules).map((module) => module.name)).toEqual(['eager', 'split', 'whole']);

    await Promise.all([loadLaterModules(container), loadLaterModules(container)]);
    await loadLaterModules(container);
    expect(resolveAll(container, Things)).toEqual(['eager', 'split now', 'split later', 'whole later']);
    expect(loads.count).toBe(2);
  });

  it('registers the later part at once, in its place, in a container made after loadModules loaded its code', async () => {
    const loads = { count: 0 };
    const modules: LoadoutModule[] = [splitModule('split', loads), { name: 'last', now: (c) => contribute(c, Things, 'last') }];
    const before = kernel(modules);
    await loadModules(modules);
    await loadModules(modules);
    const after = kernel(modules);
    expect(resolveAll(after, Things)).toEqual(['split now', 'split later', 'last']);
    expect(loads.count).toBe(1);
    // Nothing twice: the container made after has it already.
    await loadLaterModules(after);
    expect(resolveAll(after, Things)).toEqual(['split now', 'split later', 'last']);
    // The container made before the code loaded still gets it, when asked, without a second load.
    expect(resolveAll(before, Things)).toEqual(['split now', 'last']);
    await loadLaterModules(before);
    expect(resolveAll(before, Things)).toEqual(['split now', 'last', 'split later']);
    expect(loads.count).toBe(1);
  });

  it('loads later parts for each container on its own', async () => {
    const module = splitModule('one', { count: 0 });
    const first = kernel([module]);
    const second = kernel([module]);
    await loadLaterModules(first);
    expect(resolveAll(first, Things)).toEqual(['one now', 'one later']);
    expect(resolveAll(second, Things)).toEqual(['one now']);
  });
});
