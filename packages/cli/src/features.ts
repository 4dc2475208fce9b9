// What the commands' actions use of Loadout's feature packages, in one module that the command line
// loads (CliContext.load) only when an action runs: `--help`, a usage error and `--version` never
// evaluate these packages, their schemas, SQLite, git or HTTP. What only commands other than
// `loadout session` use is in laterFeatures.ts, which a session never loads.
export { createLoadout, loadoutModules } from '@loadout/app';
export { configureJobRetention, configureJobWorkers, describeFailure, TaskExecution } from '@loadout/jobs';
export { loadModules } from '@loadout/kernel';
export { CapabilityLevels, parseLevelEndArgument } from '@loadout/levels';
export { isMarketplaceEntryId, MarketplaceManager, PluginLockSync, PluginManager } from '@loadout/plugins';
export { startServer } from '@loadout/server';
export { CapabilityStateService } from '@loadout/state';
export { TASK_KIND, TaskStore } from '@loadout/tasks';
export { TrustService } from '@loadout/trust';
