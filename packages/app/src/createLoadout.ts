import { affordancesModule } from '@loadout/affordances';
import { dbModule } from '@loadout/db';
import { createKernel, type LoadoutModule, type Places } from '@loadout/kernel';
import { levelsModule } from '@loadout/levels';
import { notificationsModule } from '@loadout/notifications';
import { pluginsModule } from '@loadout/plugins';
import { runtimesModule } from '@loadout/runtimes';
import { serverModule } from '@loadout/server';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { stateModule } from '@loadout/state';
import { tasksModule } from '@loadout/tasks';
import type { DependencyContainer } from 'tsyringe';

/**
 * Every package that contributes to Loadout, one line each, in the order kinds appear in a
 * session. Adding a kind of capability is one package and one line here.
 */
export const loadoutModules: readonly LoadoutModule[] = [
  dbModule,
  pluginsModule,
  skillsModule,
  affordancesModule,
  notificationsModule,
  serversModule,
  tasksModule,
  serverModule,
  stateModule,
  levelsModule,
  runtimesModule,
];

export interface LoadoutOptions {
  readonly places: Places;
  /** Cache reads and watch the roots: for the long-running server. */
  readonly watch?: boolean;
}

/** The process's root container with every module registered. */
export function createLoadout(options: LoadoutOptions): DependencyContainer {
  return createKernel(options, loadoutModules);
}
