import { affordancesModule } from '@loadout/affordances';
import { agentsModule } from '@loadout/agents';
import { commandsModule } from '@loadout/commands';
import { Database, DatabaseLocation, databaseLocationOf, dbModule } from '@loadout/db';
import { jobsModule } from '@loadout/jobs/module';
import { hooksModule } from '@loadout/hooks';
import { keptReadsModule } from '@loadout/kept-reads';
import { createKernel, type LoadoutModule, type Places, resolve } from '@loadout/kernel';
import { levelsModule } from '@loadout/levels/module';
import { notificationsModule } from '@loadout/notifications';
import { pluginsModule } from '@loadout/plugins/module';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { stateModule } from '@loadout/state/module';
import { tasksModule } from '@loadout/tasks';
import { trustModule } from '@loadout/trust/module';
import { usageModule } from '@loadout/usage/module';
import { webModule } from '@loadout/web';
import type { DependencyContainer } from 'tsyringe';

export { watchBudgetFrom } from '@loadout/kept-reads';

/**
 * Every package that contributes to Loadout, one line each, in the order kinds appear in a
 * session. Adding a kind of capability is one package and one line here. Each is a `LoadoutModule`
 * (what registers now, what later, routes, methods); a package that contributes nothing a session
 * reads (runtimes' writers and their TOML and JSONC editors, MCP) has only a later part and routes, declared
 * here so that `loadout session` never loads its code; the command line loads it (`loadModules`)
 * for every other command and the server (`loadServedParts`) before it serves.
 */
export const loadoutModules: readonly LoadoutModule[] = [
  dbModule,
  pluginsModule,
  skillsModule,
  affordancesModule,
  notificationsModule,
  serversModule,
  tasksModule,
  agentsModule,
  commandsModule,
  hooksModule,
  jobsModule,
  stateModule,
  trustModule,
  levelsModule,
  usageModule,
  {
    name: 'runtimes',
    later: async () => (await import('@loadout/runtimes')).runtimesModule,
    routes: async () => (await import('@loadout/runtimes')).runtimeRoutes,
  },
  webModule,
  {
    name: 'mcp',
    later: async () => (await import('@loadout/mcp')).mcpModule,
    routes: async () => (await import('@loadout/mcp')).mcpHttpRoutes,
  },
];

export interface LoadoutOptions {
  readonly places: Places;
  /** Keep reads and watch the roots (`@loadout/kept-reads`): for the long-running server. */
  readonly watch?: boolean;
  /** At most this many file watches (`LOADOUT_WATCH_BUDGET`); unlimited when absent. */
  readonly watchBudget?: number;
  /**
   * The PostgreSQL database every table goes to (`--database-url`, `LOADOUT_DATABASE_URL`); empty
   * or left out, `LOADOUT_DATABASE_URL` of the process decides, and unset that, the SQLite file.
   */
  readonly databaseUrl?: string;
}

/**
 * The process's root container with every module registered, and the database opened. Opening
 * it here, before any service that needs it, lets a database that cannot be used be reported as
 * itself (`DATABASE_CORRUPT`, `DATABASE_EMPTY` …): the container would otherwise report only that
 * the first service needing it could not be made, and drop the reason's code.
 */
export function createLoadout(options: LoadoutOptions): DependencyContainer {
  const modules =
    options.watch === true
      ? [keptReadsModule(options.watchBudget === undefined ? {} : { watchBudget: options.watchBudget }), ...loadoutModules]
      : loadoutModules;
  const container = createKernel(options, modules);
  if (options.databaseUrl !== undefined && options.databaseUrl !== '') {
    container.register(DatabaseLocation, { useValue: databaseLocationOf(options.databaseUrl) });
  }
  resolve(container, DatabaseLocation);
  resolve(container, Database);
  return container;
}
