// The entry of the bundled command (dist/loadout-<hash>.cjs), which main.ts compiles with its code
// cache. `reflect-metadata` comes first: tsyringe checks for it as it loads.
import 'reflect-metadata';

export { runCli } from './runCli.js';
