import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { Places } from './Places.js';
import { ScanSource } from './ScanSource.js';
import { SessionLoader } from './SessionLoader.js';
import { resolve } from './token.js';

export interface KernelOptions {
  readonly places: Places;
}

/** A module adds a kind, a store or a service to the root container: one line per package. */
export type LoadoutModule = (container: DependencyContainer) => void;

/**
 * The process's root container: a fresh child of tsyringe's default container. Loadout registers
 * nothing on the default container (no `@singleton` or `@registry` at import time), so every
 * registration lives in this child and two kernels in one process never share state.
 */
export function createKernel(options: KernelOptions, modules: readonly LoadoutModule[] = []): DependencyContainer {
  const root = globalContainer.createChildContainer();
  root.register(Places, { useValue: options.places });
  root.register(SessionLoader, { useValue: new SessionLoader(root) });
  for (const module of modules) module(root);
  return root;
}

/** Releases what the kernel holds open (a scan source's file watchers). */
export function closeKernel(root: DependencyContainer): void {
  if (root.isRegistered(ScanSource, true)) resolve(root, ScanSource).close();
}
