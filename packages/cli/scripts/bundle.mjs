// Bundles the compiled command line (dist/lib, from tsc) into dist/main.js and its chunks: one
// file to load instead of hundreds, and each command's own modules in a chunk loaded only when
// that command runs (dynamic imports split). Native modules (better-sqlite3) stay outside and are
// loaded where pnpm installed them, by a path relative to the bundle.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const packageDir = path.resolve(import.meta.dirname, '..');
const lib = path.join(packageDir, 'dist', 'lib');
const out = path.join(packageDir, 'dist');
const NATIVE = new Set(['better-sqlite3']);

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
      const usesNames = ['__filename', '__dirname'].filter((name) => text.includes(name) && !new RegExp(`(?:const|let|var|function)\\s+${name}\\b`).test(text));
      if (!usesMeta && usesNames.length === 0) return undefined;
      const url = `new URL(${JSON.stringify(fromBundle(args.path))}, __loadoutBundleUrl)`;
      const file = `decodeURIComponent(${url}.pathname)`;
      const dir = `decodeURIComponent(new URL('.', ${url}).pathname).replace(/\\/$/, '')`;
      let contents = text.replaceAll('import.meta.dirname', dir).replaceAll('import.meta.filename', file).replaceAll('import.meta.url', `${url}.href`);
      if (usesNames.includes('__filename')) contents = `var __filename = ${file};\n${contents}`;
      if (usesNames.includes('__dirname')) contents = `var __dirname = ${dir};\n${contents}`;
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/** Native modules are resolved now, from the package that depends on them, and left outside. */
const nativeOutside = {
  name: 'native-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (!NATIVE.has(args.path) || args.pluginData === 'native') return undefined;
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'native' });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: `./${fromBundle(found.path)}`, external: true };
    });
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

// Chunks of an earlier build go: their names change with their content.
for (const name of fs.readdirSync(out)) if (name.endsWith('.js')) fs.rmSync(path.join(out, name));
const built = await esbuild.build({
  entryPoints: { main: path.join(lib, 'main.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: '[name]-[hash]',
  // The ES build where a package has one: a UMD build (jsonc-parser's) requires its parts by names
  // a bundler cannot follow.
  mainFields: ['module', 'main'],
  // Less text to parse at every start; names are kept, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  // CommonJS dependencies call require(); an ES module has none of its own. The bundle's own
  // address is named without `import.meta`, which would make a CommonJS module that uses it an ES one.
  banner: { js: "import { createRequire as __loadoutRequire } from 'node:module';\nconst __loadoutBundleUrl = import.meta.url;\nconst require = __loadoutRequire(__loadoutBundleUrl);" },
  plugins: [nativeOutside, englishZodOnly, keepModuleLocations],
  logLevel: 'warning',
  metafile: process.env.LOADOUT_BUNDLE_META === '1',
});
if (built.metafile !== undefined) fs.writeFileSync(path.join(out, 'meta.json'), JSON.stringify(built.metafile));
