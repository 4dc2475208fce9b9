import { loadLaterModules, LoadoutModules, resolveAll } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { type ApiRoute, contributeRoutes } from './ApiRoute.js';
import { contributeRpcMethods, type RpcMethod } from './RpcMethod.js';

// The faces' part of the one module shape: a module declares its routes and JSON-RPC methods
// beside what it registers now and later, and only the server loads them. Declared here, not in
// the kernel, so the kernel knows no face.
declare module '@loadout/kernel' {
  interface LoadoutModule {
    /** The module's HTTP routes: their code loads only in the server. */
    readonly routes?: () => Promise<readonly ApiRoute[]>;
    /** The module's JSON-RPC methods: their code loads only in the server. */
    readonly rpcMethods?: () => Promise<readonly RpcMethod[]>;
  }
}

const completed = new WeakMap<DependencyContainer, Promise<void>>();

/**
 * Registers everything a serving process needs that `container` was made without: every module's
 * later part, then its routes and methods, each named after the module that declares it (so two
 * contributors of one route are both named). Once per container.
 */
export function loadServedParts(container: DependencyContainer): Promise<void> {
  let completing = completed.get(container);
  if (completing === undefined) {
    completing = (async () => {
      await loadLaterModules(container);
      const modules = resolveAll(container, LoadoutModules);
      const served = await Promise.all(
        modules.map(async (module) => ({ routes: await module.routes?.(), methods: await module.rpcMethods?.() })),
      );
      for (const [at, module] of modules.entries()) {
        const { routes, methods } = served[at] ?? {};
        if (routes !== undefined) contributeRoutes(container, module.name, routes);
        if (methods !== undefined) contributeRpcMethods(container, module.name, methods);
      }
    })();
    completed.set(container, completing);
  }
  return completing;
}
