import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { type LoadoutModule, registerModules } from './LoadoutModule.js';
import { Places } from './Places.js';
import { ScanSource } from './ScanSource.js';
import { SessionLoader } from './SessionLoader.js';
import { resolve } from './token.js';

export interface KernelOptions {
  readonly places: Places;
}

/**
 * The process's root container: a fresh child of tsyringe's default container. Loadout registers
 * nothing on the default container (no `@singleton` or `@registry` at import time), so every
 * registration lives in this child and two kernels in one process never share state.
 */
export function createKernel(options: KernelOptions, modules: readonly LoadoutModule[] = []): DependencyContainer {
  const root = globalContainer.createChildContainer();
  root.register(Places, { useValue: options.places });
  root.register(SessionLoader, { useValue: new SessionLoader(root) });
  registerModules(root, modules);
  return root;
}

/** Releases what the kernel holds open (a scan source's file watchers). */
export function closeKernel(root: DependencyContainer): void {
  if (root.isRegistered(ScanSource, true)) resolve(root, ScanSource).close();
}
