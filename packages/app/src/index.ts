export { createLoadout, loadoutModules, type LoadoutOptions } from './createLoadout.js';
