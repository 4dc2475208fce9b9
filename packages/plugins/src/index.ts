export * from './PluginRegistry.js';
export * from './pluginsModule.js';
