import { type ServerService, ServerServices } from '@loadout/api';
import { DatabaseLocation } from '@loadout/db';
import { contribute, type Registration, Places, redactCredentials, resolve, resolveAll } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { Lifecycle } from 'tsyringe';
import { GitMarketplaceManager, MarketplaceManager } from './MarketplaceManager.js';
import { PluginLifecycleListeners } from './PluginLifecycleListener.js';
import { PluginLock, PluginLockFile } from './PluginLock.js';
import { GitPluginLockSync, PluginLockSync } from './PluginLockSync.js';
import { GitPluginManager, GitPluginManagerParts, PluginManager } from './PluginManager.js';
import { PluginContentsReader, SessionPluginContents } from './pluginContents.js';

/**
 * The later part of {@link pluginsModule}: the plugin manager, the marketplaces' manager, the lock
 * file and its sync, and the server's per-host notice. Manager parts registered before this part
 * (a test's git home) are kept.
 */
export const pluginManagersModule: Registration = (container) => {
  // Listeners are asked for when used, so modules registered after this one count.
  if (!container.isRegistered(GitPluginManagerParts)) {
    container.register(GitPluginManagerParts, {
      useValue: {
        listeners: () => resolveAll(container, PluginLifecycleListeners),
        env: process.env,
        cwd: () => process.cwd(),
      },
    });
  }
  container.register(PluginContentsReader, { useValue: new SessionPluginContents(container) });
  container.register(PluginLock, { useClass: PluginLockFile }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginManager, { useClass: GitPluginManager }, { lifecycle: Lifecycle.Singleton });
  container.register(MarketplaceManager, { useClass: GitMarketplaceManager }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginLockSync, { useClass: GitPluginLockSync }, { lifecycle: Lifecycle.Singleton });
  contribute(container, ServerServices, perHostNotice(container));
};

/**
 * What `loadout serve` says on a shared database: a plugin is a clone on each host's disk, so the
 * plugin and marketplace registries stay in this data folder while everything else is shared,
 * and the lock file is how hosts keep their plugins equal (docs/decisions/database.md).
 */
function perHostNotice(container: DependencyContainer): ServerService {
  return {
    name: 'plugins',
    start: async () => {
      const { url } = resolve(container, DatabaseLocation);
      if (url === null) return { lines: [], json: {} };
      const { dataDir } = resolve(container, Places);
      const lockFile = resolve(container, PluginLock).file;
      return {
        lines: [
          `database: ${redactCredentials(url)}, shared with every server on it (jobs, inbox, switches, trust)`,
          `plugins and marketplaces are this host's own, in ${dataDir}; \`loadout plugins sync\` makes them match ${lockFile}`,
        ],
        json: { plugins: { shared: false, dataDir, lockFile } },
      };
    },
    stop: async () => undefined,
  };
}
