#!/usr/bin/env node
// The entry point loads as little as it can before it knows the command: `--version` reads one
// file; everything else loads the command line and, through each command, what it uses.
import { printVersion, wantsVersion } from './version.js';

// A reader that stops early (`loadout session --json | head`) closes the pipe: what is left of the
// answer has nowhere to go, which is no failure of the command, so the command finishes its work
// quietly instead of dying on a stack trace halfway through.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

if (wantsVersion(process.argv.slice(2))) printVersion(process.argv.includes('--json'));
else {
  // Before any module that uses the container is evaluated: tsyringe checks for it as it loads.
  await import('reflect-metadata');
  await import('./runCli.js');
}
