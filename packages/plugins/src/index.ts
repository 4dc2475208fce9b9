export { PluginLifecycleListeners } from './PluginLifecycleListener.js';
export { PluginManager } from './PluginManager.js';
export { type PluginEntry, PluginRegistry } from './PluginRegistry.js';
export { pluginsModule } from './pluginsModule.js';
