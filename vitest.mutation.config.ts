import { defineConfig } from 'vitest/config';

// Stryker's run of the checks' own code (stryker.config.json, `npm run mutation`): the per-check unit tests, which
// replay recordings with no server and no dist/, and the unit tests of the check helpers that start nothing either
// (compare, fuzz-ids, findings). Neither the global setup nor the tests that spawn the CLI belong.
export default defineConfig({
  test: {
    include: ['test/checks/**/*.test.ts', 'test/bounded.test.ts', 'test/fuzz-ids.test.ts', 'test/exact-json.test.ts'],
    testTimeout: 60_000,
  },
});
