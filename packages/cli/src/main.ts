#!/usr/bin/env node
// The entry point loads as little as it can before it knows the command: `--version` reads one
// file; everything else compiles the bundled command line with its code cache (loadCachedScript)
// and runs it. The build makes it a CommonJS file (dist/package.json says so): Node starts a
// CommonJS entry without its ES loader, ~15–25 % of `node -e ''` sooner.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { proofDataDir, provenOutput } from './applyProof.js';
import { REPOSITORY_ROOT } from './cliPaths.js';
import { takeBackHandedOver } from './handedOverEnvironment.js';
import { loadCachedScript } from './loadCachedScript.js';
import { runMcpServer } from './mcpRun.js';
import { printVersion, wantsVersion } from './version.js';

/** The bundle beside this file and its content hash, written in here by the build (scripts/bundle.mjs). */
declare const LOADOUT_BUNDLE: { readonly file: string; readonly hash: string } | undefined;

// Before anything can start a program: what the `loadout` wrapper handed over under another name.
takeBackHandedOver(process.env);

// A reader that stops early (`loadout session --json | head`) closes the pipe: what is left of the
// answer has nowhere to go, which is no failure of the command, so the command finishes its work
// quietly instead of dying on a stack trace halfway through.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

if (wantsVersion(process.argv.slice(2))) printVersion(process.argv.includes('--json'));
// A server a runtime starts through Loadout (its secrets by reference): the entry says what to
// start, so it starts without the command line, the session or the database.
else if (process.argv[2] === 'mcp' && process.argv[3] === 'run') runMcpServer(process.argv.slice(3));
else if (typeof LOADOUT_BUNDLE === 'undefined') {
  // Not bundled (dist/lib as tsc wrote it): the same command line through Node's ES loader.
  void import('./cliBundle.js').then(({ runCli }) => runCli(process.argv));
} else {
  // `apply` again with nothing changed prints what it printed last time while its proof holds
  // (applyProof.ts), without loading the command line.
  const proven = process.argv[2] === 'apply' ? provenApply(LOADOUT_BUNDLE.hash) : null;
  if (proven !== null) process.stdout.write(proven);
  else {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const bundle = path.join(here, LOADOUT_BUNDLE.file);
    const loaded = loadCachedScript({ bundle, bundleHash: LOADOUT_BUNDLE.hash, cache: `${bundle}.v8cache` });
    if (process.env.LOADOUT_DEBUG_CODE_CACHE === '1') process.stderr.write(`loadout: code cache ${loaded.cache}\n`);
    void (loaded.exports as { runCli: (argv: readonly string[], build: string) => Promise<void> }).runCli(
      process.argv,
      LOADOUT_BUNDLE.hash,
    );
  }
}

function provenApply(build: string): string | null {
  const cwd = process.cwd();
  return provenOutput({
    argv: process.argv,
    env: process.env,
    cwd,
    build,
    dataDir: proofDataDir(process.env, REPOSITORY_ROOT, cwd),
    stdoutIsTerminal: process.stdout.isTTY === true,
  });
}
