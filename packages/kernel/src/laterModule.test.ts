import { describe, expect, it } from 'vitest';
import { createKernel, type LoadoutModule } from './createKernel.js';
import { contributeLater, laterModule, loadLaterModules, loadModules, splitModule } from './laterModule.js';
import { resolvePlaces } from './Places.js';
import { contribute, resolveAll, token } from './token.js';

const Things = token<string>('test.things');
const kernel = (modules: readonly LoadoutModule[]) => createKernel({ places: resolvePlaces({}, '/nowhere') }, modules);

describe('later modules', () => {
  it('are not in a container made before their code loads, until loadLaterModules registers them, once', async () => {
    let loads = 0;
    const modules: LoadoutModule[] = [
      (c) => contribute(c, Things, 'eager'),
      (c) =>
        contributeLater(c, async () => {
          loads += 1;
          return (into) => contribute(into, Things, 'routes of one package');
        }),
      laterModule(async () => {
        loads += 1;
        return (into) => {
          contribute(into, Things, 'a whole package');
          contribute(into, Things, 'and its second contribution');
        };
      }),
    ];
    const container = kernel(modules);
    // A session-only process: only what was contributed at once, no loader run.
    expect(resolveAll(container, Things)).toEqual(['eager']);
    expect(loads).toBe(0);

    await Promise.all([loadLaterModules(container), loadLaterModules(container)]);
    await loadLaterModules(container);
    expect(resolveAll(container, Things)).toEqual(['eager', 'routes of one package', 'a whole package', 'and its second contribution']);
    expect(loads).toBe(2);
  });

  it('are registered at once, in their place, in a container made after loadModules loaded their code', async () => {
    let loads = 0;
    const whole = laterModule(async () => {
      loads += 1;
      return (into) => contribute(into, Things, 'later');
    });
    const modules: LoadoutModule[] = [(c) => contribute(c, Things, 'first'), whole, (c) => contribute(c, Things, 'last')];
    const before = kernel(modules);
    await loadModules(modules);
    await loadModules(modules);
    const after = kernel(modules);
    expect(resolveAll(after, Things)).toEqual(['first', 'later', 'last']);
    expect(loads).toBe(1);
    // The container made before the code loaded still gets it, when asked.
    expect(resolveAll(before, Things)).toEqual(['first', 'last']);
    await loadLaterModules(before);
    expect(resolveAll(before, Things)).toEqual(['first', 'last', 'later']);
    expect(loads).toBe(1);
  });

  it('are loaded for each container on its own', async () => {
    const module: LoadoutModule = (c) => contributeLater(c, async () => (into) => contribute(into, Things, 'x'));
    const one = kernel([module]);
    const two = kernel([module]);
    await loadLaterModules(one);
    expect(resolveAll(one, Things)).toEqual(['x']);
    expect(resolveAll(two, Things)).toEqual([]);
  });

  it('of a module made of two parts: the first at once, the second later, in its place once loaded', async () => {
    let loads = 0;
    const split = splitModule(
      (c) => contribute(c, Things, 'tables'),
      async () => {
        loads += 1;
        return (into) => contribute(into, Things, 'runner');
      },
    );
    const modules: LoadoutModule[] = [split, (c) => contribute(c, Things, 'next')];
    // Made before the code loads, as a session's: the first part only, until asked for the rest.
    const sessionOnly = kernel(modules);
    expect(resolveAll(sessionOnly, Things)).toEqual(['tables', 'next']);
    expect(loads).toBe(0);
    await loadModules(modules);
    const whole = kernel(modules);
    expect(resolveAll(whole, Things)).toEqual(['tables', 'runner', 'next']);
    await loadLaterModules(sessionOnly);
    expect(resolveAll(sessionOnly, Things)).toEqual(['tables', 'next', 'runner']);
    expect(loads).toBe(1);
  });
});
