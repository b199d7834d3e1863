import { defineConfig } from 'vitest/config';
import { ConformanceReporter } from 'restaurant-open-platform-conformance/reporter';

export default defineConfig({
  test: {
    include: ['test/**/*.test.mjs'],
    testTimeout: 120_000,
    // The conformance report (report.json, junit.xml, report.html) beside Vitest's own output.
    reporters: ['default', new ConformanceReporter({ dir: 'conformance-report' })],
  },
});
