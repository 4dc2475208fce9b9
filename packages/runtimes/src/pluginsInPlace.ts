/**
 * Whether a runtime loads a Loadout plugin in place, as one of its own plugins: then the plugin's
 * agents, commands and hooks reach that runtime with it, and the planner copies none of them
 * (their skip reads `LOADED_IN_PLACE`).
 *
 * No runtime does so yet: Claude Code's registration of Loadout plugins in place (its
 * `extraKnownMarketplaces` and `enabledPlugins` settings) arrives with issue 30's in-place work,
 * which answers here for the plugins it registers.
 */
export function pluginLoadedInPlace(_runtimeName: string, _pluginName: string): boolean {
  return false;
}
