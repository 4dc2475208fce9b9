// What the commands' actions use of Loadout's feature packages, in one module that the command line
// loads (CliContext.load) only when an action runs: `--help`, a usage error and `--version` never
// evaluate these packages, their schemas, SQLite, git or HTTP.
export { createLoadout } from '@loadout/app';
export { configureJobRetention, configureJobWorkers, describeFailure, TaskExecution } from '@loadout/jobs';
export { CapabilityLevels, parseLevelEndArgument } from '@loadout/levels';
export { findProjectFolder, serveMcpOverStdio } from '@loadout/mcp';
export { isMarketplaceEntryId, MarketplaceManager, PluginLockSync, PluginManager } from '@loadout/plugins';
export { explainSkill, RuntimeApplier, RuntimePlanner } from '@loadout/runtimes';
export { startServer } from '@loadout/server';
export { CapabilityStateService } from '@loadout/state';
export { TASK_KIND, TaskStore } from '@loadout/tasks';
export { TrustService } from '@loadout/trust';
