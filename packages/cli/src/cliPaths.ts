import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file sits beside main.ts (src/, dist/lib/ once compiled) and is bundled into dist/: the
// paths below hold in each place, since each of those folders is two levels under the package.
const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.basename(here) === 'lib' ? path.resolve(here, '../..') : path.resolve(here, '..');

/** The repository this command ships in: the default workspace. */
export const REPOSITORY_ROOT = path.resolve(packageDir, '../..');

/** The built `loadout` entry point, for registering Loadout itself where a command line is needed. */
export const CLI_MAIN = path.join(packageDir, 'dist', 'main.js');

/** The command's package manifest: its version. */
export const CLI_PACKAGE_JSON = path.join(packageDir, 'package.json');
