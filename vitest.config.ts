import { defineConfig } from 'vitest/config';

// Workspace packages run from source through the `source` export condition; it must be set for
// SSR resolution too, which is what vitest uses for Node code.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    setupFiles: ['./scripts/vitest-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
