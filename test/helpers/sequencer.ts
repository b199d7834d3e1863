import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first (measured: the mutant runs alone take about two minutes). Vitest orders by
 * the durations of earlier runs, but a clean clone (CI) has none, and a long file started last stretches the run by
 * its whole length.
 */
const LONGEST_FIRST = ['mutants', 'hostile', 'pack', 'hostile-twists', 'latitude', 'check-har', 'load', 'verdict'];

/** Vitest's own order, with the known long files moved to the front. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(`/test/${name}.test.ts`));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
