// Bundles the compiled command line (dist/lib, from tsc) into one CommonJS file,
// dist/loadout-<hash>.cjs, and its entry point dist/main.js, which compiles that file with V8's code
// cache (src/loadCachedScript.ts) made here by a warm-up run (warmCodeCache.mjs). One file: Node's ES
// loader would resolve, read and link each chunk at every start, and a code cache is offered for one
// script. What packages load on demand (dynamic imports: the HTTP server, the MCP SDK's endpoint, the
// command actions' features) stays lazy inside it: esbuild makes those modules functions evaluated on
// first import. Native addons (better-sqlite3's) stay outside and are loaded where pnpm installed
// them, by a path relative to the bundle.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const packageDir = path.resolve(import.meta.dirname, '..');
const lib = path.join(packageDir, 'dist', 'lib');
const out = path.join(packageDir, 'dist');

/** A path from the bundle's folder to `file`, as a URL path. */
const fromBundle = (file) => path.relative(out, file).split(path.sep).join('/');

/**
 * A module of another package that finds files beside itself (`import.meta.url`, `.dirname`,
 * CommonJS `__filename`, `__dirname`) keeps finding them: they are rewritten to its own place,
 * relative to the bundle. The
 * command's own modules need none, since the bundle sits where they were compiled relative to the
 * package.
 */
const keepModuleLocations = {
  name: 'keep-module-locations',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
      if (args.path.startsWith(lib + path.sep)) return undefined;
      const text = await fs.promises.readFile(args.path, 'utf8');
      const usesMeta = text.includes('import.meta.');
      // A CommonJS module's own names for its place, which an ES bundle does not give it.
      const usesNames = ['__filename', '__dirname'].filter(
        (name) => text.includes(name) && !new RegExp(`(?:const|let|var|function)\\s+${name}\\b`).test(text),
      );
      if (!usesMeta && usesNames.length === 0) return undefined;
      const url = `new URL(${JSON.stringify(fromBundle(args.path))}, __loadoutBundleUrl)`;
      const file = `decodeURIComponent(${url}.pathname)`;
      const dir = `decodeURIComponent(new URL('.', ${url}).pathname).replace(/\\/$/, '')`;
      let contents = text
        .replaceAll('import.meta.dirname', dir)
        .replaceAll('import.meta.filename', file)
        .replaceAll('import.meta.url', `${url}.href`);
      if (usesNames.includes('__filename')) contents = `var __filename = ${file};\n${contents}`;
      if (usesNames.includes('__dirname')) contents = `var __dirname = ${dir};\n${contents}`;
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * better-sqlite3's JavaScript is bundled (so it is compiled with the rest and kept in the code
 * cache, instead of a dozen files Node's CommonJS loader resolves, reads and compiles at each
 * start); its native addon stays outside. The `bindings` lookup, which searches a dozen places for
 * the addon at run time, is replaced by the addon's path found now in the package pnpm installed,
 * relative to the bundle, so a clean clone's `pnpm install && pnpm build` gives a working command.
 */
const nativeAddonOutside = {
  name: 'native-addon-outside',
  setup(build) {
    build.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, async (args) => {
      const addon = path.resolve(path.dirname(args.path), '../build/Release/better_sqlite3.node');
      if (!fs.existsSync(addon)) throw new Error(`better-sqlite3's addon is not built: ${addon} (run pnpm install)`);
      const text = await fs.promises.readFile(args.path, 'utf8');
      const lookup = "require('bindings')('better_sqlite3.node')";
      if (!text.includes(lookup)) throw new Error(`better-sqlite3 no longer loads its addon with ${lookup}: see native-addon-outside`);
      return {
        contents: text.replace(lookup, `require(${JSON.stringify(`./${fromBundle(addon)}`)})`),
        loader: 'js',
        resolveDir: path.dirname(args.path),
      };
    });
    build.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * zod's namespace re-exports every language's error messages (`z.locales`), ~250 KiB that every
 * command would compile and evaluate. Loadout's messages are English (the default zod registers
 * itself), so the bundle keeps English only.
 */
const englishZodOnly = {
  name: 'english-zod-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * commander requires `node:child_process` as it loads, for subcommands that are programs of their
 * own, which Loadout never declares; loading it is a few ms of every command's start. The bundle
 * asks for it when first used instead (the same module, the same calls).
 */
const commanderChildProcessOnUse = {
  name: 'commander-child-process-on-use',
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!text.includes(eager))
        throw new Error(`commander no longer loads child_process with ${eager}: see commander-child-process-on-use`);
      const onUse = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: text.replace(eager, onUse), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Each `import fs from 'node:fs'` of an ES module becomes `__toESM(require("node:fs"),1)` in a
 * CommonJS bundle: a new object with a getter made for every one of the module's properties, at
 * every importing module (~150 of them, 57 for `fs` alone, ~100 properties each), which is ~4 ms and
 * thousands of objects for the collector at every start. Every import of a builtin gets the one
 * object made at its first import instead, as an ES module's imports of one module share its
 * namespace; the getters still read the module's properties when called, as before. The same in
 * the entry (main.js), which imports fs, path and crypto from several modules. The build fails if
 * esbuild stops writing the call this looks for.
 */
const SHARED_BUILTIN = [
  'var __loadoutBuiltins = new Map();',
  'function __loadoutBuiltin(id) { let namespace = __loadoutBuiltins.get(id); if (namespace === undefined) __loadoutBuiltins.set(id, (namespace = __toESM(require(id), 1))); return namespace; }',
];
function builtinNamespacesOnce(bundle) {
  const site = /__toESM\(require\("(node:[a-z_/]+)"\), ?1\)/g;
  if (!site.test(bundle))
    throw new Error('esbuild no longer imports builtins with __toESM(require("node:…"),1): see builtinNamespacesOnce');
  return bundle.replace(site, (_, id) => `__loadoutBuiltin(${JSON.stringify(id)})`);
}

// Files of an earlier build go: their names change with their content.
for (const name of fs.readdirSync(out)) if (/\.(js|cjs|v8cache|LEGAL\.txt)$/.test(name)) fs.rmSync(path.join(out, name));

// The command line, one CommonJS file. Its modules' `import.meta.url` (the command's own, such as
// cliPaths.js) is the bundle's address; other packages' modules get their own (keepModuleLocations).
const built = await esbuild.build({
  entryPoints: [path.join(lib, 'cliBundle.js')],
  write: false,
  outfile: path.join(out, 'loadout.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // The ES build where a package has one: a UMD build (jsonc-parser's) requires its parts by names
  // a bundler cannot follow.
  mainFields: ['module', 'main'],
  // Less text to parse at every start; names are kept, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  // Escapes anything beyond ASCII, so the loader can read the file as latin1 (checked below).
  charset: 'ascii',
  // Licence comments (which may name people in any script) in a file of their own beside it.
  legalComments: 'external',
  define: { 'import.meta.url': '__loadoutBundleUrl', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
  banner: { js: ["var __loadoutBundleUrl = require('node:url').pathToFileURL(__filename).href;", ...SHARED_BUILTIN].join('\n') },
  plugins: [nativeAddonOutside, englishZodOnly, commanderChildProcessOnUse, keepModuleLocations],
  logLevel: 'warning',
  metafile: process.env.LOADOUT_BUNDLE_META === '1',
});
const output = (ending) => built.outputFiles.find((found) => found.path.endsWith(ending));
const text = Buffer.from(builtinNamespacesOnce(output('.cjs').text), 'latin1');
if (text.some((byte) => byte > 0x7f)) throw new Error('the bundle is not ASCII: loadCachedScript reads it as latin1');
// A dynamic import() left in the bundle would need an ES loader the compiled script does not have.
if (/\bimport\(/.test(output('.cjs').text)) throw new Error('the bundle still has a dynamic import()');
const hash = crypto.createHash('sha256').update(text).digest('hex');
const file = `loadout-${hash.slice(0, 16)}.cjs`;
fs.writeFileSync(path.join(out, file), text);
if (output('.LEGAL.txt') !== undefined) fs.writeFileSync(path.join(out, 'loadout.LEGAL.txt'), output('.LEGAL.txt').contents);
if (built.metafile !== undefined) fs.writeFileSync(path.join(out, 'meta.json'), JSON.stringify(built.metafile));

// The entry point: `--version`, the EPIPE handling and the loader, with the bundle's name and hash
// written in, so a cache is only ever taken for the bundle it was made for. It is CommonJS (Node
// starts a CommonJS entry without its ES loader: ~8 ms sooner here), still `dist/main.js` for `bin`
// and the bridges apply writes: dist/package.json says so, and dist/lib/package.json keeps tsc's
// files ES modules.
const entry = await esbuild.build({
  entryPoints: { main: path.join(lib, 'main.js') },
  write: false,
  outdir: out,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  define: { LOADOUT_BUNDLE: JSON.stringify({ file, hash }), 'import.meta.url': '__loadoutMainUrl' },
  banner: { js: ["'use strict';var __loadoutMainUrl = require('node:url').pathToFileURL(__filename).href;", ...SHARED_BUILTIN].join('\n') },
  // Only tsc's unbundled dist/lib takes this way in; the bundled entry never does.
  external: ['./cliBundle.js'],
  logLevel: 'warning',
});
fs.writeFileSync(path.join(out, 'main.js'), builtinNamespacesOnce(entry.outputFiles.find((found) => found.path.endsWith('main.js')).text));

fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
fs.writeFileSync(path.join(lib, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);

// The code cache, made by running representative commands once (see warmCodeCache.mjs).
const warm = spawnSync(process.execPath, [path.join(import.meta.dirname, 'warmCodeCache.mjs'), path.join(out, file), hash], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (warm.status !== 0) throw new Error(`making the code cache failed (exit ${warm.status})`);
