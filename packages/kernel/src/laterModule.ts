import type { DependencyContainer } from 'tsyringe';
import type { LoadoutModule } from './createKernel.js';
import { contribute, resolveAll, token } from './token.js';

/** Loads a module's code, e.g. `async () => (await import('@loadout/runtimes')).runtimesModule`. */
export type ModuleLoader = () => Promise<LoadoutModule>;

/** The loaders of what a container was made without, for {@link loadLaterModules}. */
const LaterModules = token<ModuleLoader>('kernel.laterModules');

/** Each loader's module once its code is loaded: code, shared by every container of the process. */
const loadedCode = new WeakMap<ModuleLoader, LoadoutModule>();

/**
 * A module whose code loads only in processes that need more than sessions (what applies,
 * serves, moves): it contributes nothing a session reads. A container made once its code is
 * loaded ({@link loadModules}) registers it at once, as any module; one made before holds its
 * loader, and {@link loadLaterModules} registers it then.
 *
 * @example
 * export const loadoutModules = [dbModule, skillsModule, laterModule(async () => (await import('@loadout/runtimes')).runtimesModule)];
 */
export function laterModule(load: ModuleLoader): LoadoutModule {
  return splitModule(() => undefined, load);
}

/**
 * A package's module in two parts: `now` registers at once what a session reads (kinds, filters,
 * holds, migrations, the stores behind them) and whatever another part may override; `load` brings
 * the module of the rest (what applies, runs, moves and serves). Like a {@link laterModule}, a
 * container made once {@link loadModules} loaded that code registers both parts at once, in this
 * place; one made before (`loadout session`'s) gets the rest from {@link loadLaterModules}.
 *
 * @example
 * export const jobsModule = splitModule(registerTables, async () => (await import('./jobsRunModule.js')).jobsRunModule);
 */
export function splitModule(now: LoadoutModule, load: ModuleLoader): LoadoutModule {
  const module: LoadoutModule = (container) => {
    now(container);
    contributeLater(container, load);
  };
  return Object.assign(module, { load });
}

/**
 * Registers `load`'s module on `container` now when this same `load` function's code was already
 * loaded ({@link loadModules}), else when {@link loadLaterModules} runs: for a module's own parts
 * that only some processes use (the server's routes and RPC methods). A loader made afresh for each
 * container (an inline arrow) is never found loaded, so its parts arrive only through
 * {@link loadLaterModules}; and the module a loader brings must not itself call `contributeLater`,
 * since one container's later modules are loaded once.
 */
export function contributeLater(container: DependencyContainer, load: ModuleLoader): void {
  const loaded = loadedCode.get(load);
  if (loaded !== undefined) loaded(container);
  else contribute(container, LaterModules, load);
}

/** Loads the code of every {@link laterModule} in `modules`: containers made afterwards are whole. */
export async function loadModules(modules: readonly LoadoutModule[]): Promise<void> {
  await Promise.all(
    modules.map(async (module) => {
      const load = (module as { readonly load?: ModuleLoader }).load;
      if (load !== undefined && !loadedCode.has(load)) loadedCode.set(load, await load());
    }),
  );
}

const completed = new WeakMap<DependencyContainer, Promise<void>>();

/**
 * Registers on `container` everything it was made without (loading the code), once per container
 * (a second call waits for the first). Whoever reads a contribution only such modules make (the
 * server: routes, RPC methods, services) awaits this first.
 */
export function loadLaterModules(container: DependencyContainer): Promise<void> {
  let completing = completed.get(container);
  if (completing === undefined) {
    completing = (async () => {
      const loads = resolveAll(container, LaterModules);
      const modules = await Promise.all(
        loads.map(async (load) => {
          const module = loadedCode.get(load) ?? (await load());
          loadedCode.set(load, module);
          return module;
        }),
      );
      for (const module of modules) module(container);
    })();
    completed.set(container, completing);
  }
  return completing;
}
