import { defineConfig } from 'vitest/config';

// Stryker's run of the checks' own code (stryker.config.json, `npm run mutation`): only the per-check unit tests,
// which replay recordings with no server and no dist/, so neither the global setup nor the other test files belong.
export default defineConfig({
  test: {
    include: ['test/checks/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
