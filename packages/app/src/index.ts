export { createLoadout, loadoutModules, type LoadoutOptions, watchBudgetFrom } from './createLoadout.js';
