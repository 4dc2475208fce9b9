import type { DependencyContainer } from 'tsyringe';
import { contribute, resolveAll, token } from './token.js';
import { WiringError } from './WiringError.js';

/** Registers services and contributions on a container. */
export type Registration = (container: DependencyContainer) => void;

/**
 * What one package contributes, declared in one object: what a session reads, registered when the
 * container is made (`now`: kinds, filters, holds, tables and the stores behind them); what only
 * processes that apply, run, move or serve need (`later`: its code is loaded by {@link loadModules}
 * or {@link loadLaterModules}, never by `loadout session`); and what only the server loads, its
 * HTTP routes and JSON-RPC methods (`routes`, `rpcMethods`: `@loadout/api` adds those fields, so
 * the kernel knows no face). `name` is the package, named as the contributor of what it adds.
 *
 * @example
 * export const tasksModule: LoadoutModule = {
 *   name: 'tasks',
 *   now: (container) => contribute(container, CapabilityKinds, taskKind),
 *   routes: async () => (await import('./taskRoutes.js')).taskRoutes,
 * };
 */
export interface LoadoutModule {
  readonly name: string;
  readonly now?: Registration;
  readonly later?: () => Promise<Registration>;
}

/** The modules a container was made with, in their order: whatever loads their later parts reads them here. */
export const LoadoutModules = token<LoadoutModule>('kernel.modules');

/** Each module's later part once its code is loaded: code, shared by every container of the process. */
const loadedCode = new WeakMap<LoadoutModule, Registration>();
/** The modules whose later part a container has registered. */
const registeredLater = new WeakMap<DependencyContainer, Set<LoadoutModule>>();

/**
 * Registers `modules` on `container` in their order: each one's `now`, and its `later` too when
 * {@link loadModules} already loaded that code (a command that applies or serves is whole at once).
 */
export function registerModules(container: DependencyContainer, modules: readonly LoadoutModule[]): void {
  const registered = new Set<LoadoutModule>();
  registeredLater.set(container, registered);
  for (const module of modules) {
    // A registration function also has a `name`, so the type checker lets one pass for a module
    // that would then register nothing: refuse it here, naming it.
    if (typeof module !== 'object' || module === null)
      throw new WiringError(
        `module ${String((module as { name?: unknown } | null)?.name ?? module)} is not a LoadoutModule object ({ name, now, later })`,
      );
    contribute(container, LoadoutModules, module);
    module.now?.(container);
    const later = loadedCode.get(module);
    if (later === undefined) continue;
    later(container);
    registered.add(module);
  }
}

/** Loads the later parts' code of `modules`: containers made afterwards register them at once. */
export async function loadModules(modules: readonly LoadoutModule[]): Promise<void> {
  await Promise.all(modules.map((module) => loadCode(module)));
}

async function loadCode(module: LoadoutModule): Promise<Registration | undefined> {
  if (module.later === undefined) return undefined;
  let code = loadedCode.get(module);
  if (code === undefined) {
    code = await module.later();
    loadedCode.set(module, code);
  }
  return code;
}

const completed = new WeakMap<DependencyContainer, Promise<void>>();

/**
 * Registers on `container` the later part of every module it was made with that it lacks (loading
 * the code), once per container (a second call waits for the first). Whoever reads a contribution
 * only later parts make (the server: its services) awaits this first.
 */
export function loadLaterModules(container: DependencyContainer): Promise<void> {
  let completing = completed.get(container);
  if (completing === undefined) {
    completing = (async () => {
      const registered = registeredLater.get(container) ?? new Set<LoadoutModule>();
      const missing = resolveAll(container, LoadoutModules).filter((module) => module.later !== undefined && !registered.has(module));
      const parts = await Promise.all(missing.map((module) => loadCode(module)));
      for (const [at, module] of missing.entries()) {
        parts[at]?.(container);
        registered.add(module);
      }
    })();
    completed.set(container, completing);
  }
  return completing;
}
