// What the actions of `loadout session` (the command marked readsSessionsOnly) use of Loadout's
// feature packages, in one module that the command line loads (CliContext.load) only when an
// action runs: `--help`, a usage error and `--version` never evaluate these packages, their
// schemas, SQLite, git or HTTP. What only the other commands use is in laterFeatures.ts, which a
// session never loads.
export { createLoadout, loadoutModules, watchBudgetFrom } from '@loadout/app';
export { loadModules } from '@loadout/kernel';
