import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { FolderScanCache } from './FolderScanCache.js';
import { Places } from './Places.js';
import { SessionLoader } from './SessionLoader.js';

export interface KernelOptions {
  readonly places: Places;
  /**
   * Keep what was read and watch the roots for changes. For long-running processes (the server);
   * a one-shot command reads the disk each time.
   */
  readonly watch?: boolean;
  /** At most this many file watches for the watch cache (`LOADOUT_WATCH_BUDGET`). */
  readonly watchBudget?: number;
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
  if (options.watch === true) root.register(FolderScanCache, { useValue: new FolderScanCache(options.watchBudget === undefined ? {} : { watchBudget: options.watchBudget }) });
  root.register(SessionLoader, { useValue: new SessionLoader(root) });
  for (const module of modules) module(root);
  return root;
}

/** Releases what the kernel holds open (file watchers). */
export function closeKernel(root: DependencyContainer): void {
  if (root.isRegistered(FolderScanCache, true)) root.resolve(FolderScanCache).close();
}
