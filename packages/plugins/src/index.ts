export { isMarketplaceEntryId, type MarketplaceHit, MarketplaceManager, type MarketplaceSummary } from './MarketplaceManager.js';
export { PluginGit } from './PluginGit.js';
export { PluginLockSync } from './PluginLockSync.js';
export { type PluginInstall, PluginManager, type PluginMigration } from './PluginManager.js';
export { type PluginEntry, PluginRegistry } from './PluginRegistry.js';
export { parsePluginName } from './parsePluginName.js';
export type { AddMarketplaceBody, InstallPluginBody, MarketplaceSearchQuery } from './pluginRoutes.js';
export { pluginsModule } from './pluginsModule.js';
