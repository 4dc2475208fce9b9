// What the actions of every command but `loadout session` use of the feature packages: loaded with
// the app's later modules (CliContext.load), never by a session. The server, the job queue's
// settings, the levels mover, the plugin and marketplace managers, the state and trust services
// and the task store are here too, so a session does not evaluate what only they import.
export {
  configureJobRetention,
  configureJobWorkers,
  describeFailure,
  JOB_CANCELLED_BY_OWNER,
  JobNotCancellableError,
  JobQueue,
  JobUses,
  JobWorkers,
  TaskExecution,
} from '@loadout/jobs';
export { CapabilityLevels, parseLevelEndArgument } from '@loadout/levels';
export { serveMcpOverStdio } from '@loadout/mcp';
export { isMarketplaceEntryId, MarketplaceManager, PluginLockSync, PluginManager, summarizeLoaded } from '@loadout/plugins';
export {
  explainSkill,
  ListingBudget,
  listingVerdict,
  LoadoutLauncher,
  RuntimeApplier,
  RuntimeChooser,
  RuntimePlanner,
  UsageHookSwitch,
} from '@loadout/runtimes';
export { SecretStore } from '@loadout/servers';
export { announcedServerUrl, startServer, TOKEN_FILE } from '@loadout/server';
export { CapabilityStateService } from '@loadout/state';
export { TASK_KIND, TaskStore } from '@loadout/tasks';
export { TrustService } from '@loadout/trust';
export { configureUsageRetention, listedWords, parseUsageRuntime, parseUsageWindow, UsageLedger } from '@loadout/usage';
