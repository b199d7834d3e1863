import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Within the calling describe block: no process warning is emitted while its tests run (what a CLI run would print on
 * stderr beside its report), whatever the servers they run against answer. For tests that run the engine in this
 * process.
 */
export function expectNoProcessWarnings(): void {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
  beforeAll(() => void process.on('warning', onWarning));
  afterAll(() => {
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });
}
