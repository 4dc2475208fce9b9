import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';

const packagesDir = path.resolve(import.meta.dirname, 'packages');

/**
 * Workspace packages run from source: `@loadout/<name>[/<sub>]` resolves to the `source` entry of
 * that package's own `exports`. Done here rather than with a global `source` resolve condition,
 * because vitest hands SSR conditions to Node as `--conditions`, and Node then picks the `source`
 * entry of any dependency that ships one (e.g. TypeScript files it cannot run).
 */
function workspaceSources(): Plugin {
  return {
    name: 'loadout-workspace-sources',
    enforce: 'pre',
    resolveId(id) {
      const match = /^@loadout\/([a-z0-9-]+)(\/.+)?$/.exec(id);
      if (match === null) return null;
      const manifest = path.join(packagesDir, match[1] as string, 'package.json');
      if (!fs.existsSync(manifest)) return null;
      const exports = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports?: Record<string, { source?: string }> }).exports ?? {};
      const source = exports[`.${match[2] ?? ''}`]?.source;
      return source === undefined ? null : path.join(path.dirname(manifest), source);
    },
  };
}

// Two projects: `unit` is every package's own tests (unit and integration on real temp trees; no
// build needed), `e2e` is packages/e2e, the tests of the whole through the built command line,
// the HTTP server and Chromium (turbo builds first: `pnpm test:e2e`).
export default defineConfig({
  plugins: [workspaceSources()],
  test: {
    setupFiles: ['./scripts/vitest-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['packages/e2e/**', '**/node_modules/**'],
        },
      },
      { extends: true, test: { name: 'e2e', include: ['packages/e2e/test/**/*.test.ts'] } },
    ],
  },
});
