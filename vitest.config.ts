import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/sequencer.js';

// The project's own tests (npm test). A conformance run has no Vitest in it: the CLI hosts the engine itself.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI the tests spawn runs dist/: rebuilt here when older than the sources (test/helpers/fresh-dist.ts).
    globalSetup: ['test/global-setup.ts'],
    // Each test file's temporary folders (test/helpers/temp-dirs.ts) go when the file ends.
    setupFiles: ['test/setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files spawn the CLI and wait on it (many on a slow server): three files at a time keep both cores
    // busy. Clean-clone CI, 2 cores: Vitest 235 s with three, 249–264 s with two (2026-11-26).
    maxWorkers: 3,
    // A clean clone has no durations to order files by: the long ones go first.
    sequence: { sequencer: LongestFirst },
  },
});
