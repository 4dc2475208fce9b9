#!/usr/bin/env node
// The entry point loads as little as it can before it knows the command: `--version` reads one
// file; everything else loads the command line and, through each command, what it uses.
import { printVersion, wantsVersion } from './version.js';

if (wantsVersion(process.argv.slice(2))) printVersion(process.argv.includes('--json'));
else {
  // Before any module that uses the container is evaluated: tsyringe checks for it as it loads.
  await import('reflect-metadata');
  await import('./runCli.js');
}
