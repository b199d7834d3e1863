import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first, as a clean-clone CI run measured them (2026-11-26: check-har 60 s down to
 * serve 10 s). Vitest orders by the durations of earlier runs, but a clean clone (CI) has none, and a long file
 * started last stretches the run by its whole length (disk-list-run, 13 s, used to start among the last).
 */
const LONGEST_FIRST = [
  'check-har',
  'latitude',
  'pack',
  'hostile-twists',
  'mutants',
  'library',
  'wire-run',
  // Added from a loaded run's ranking (2026-11-28): files that came after the list was measured.
  'auth-scheme-switch',
  'adapters',
  'action',
  'hostile',
  'progress-estimate',
  'attest',
  'html-report',
  'har',
  'verdict',
  'disk-list-run',
  'progress',
  'load',
  'bench-smoke',
  'baseline',
  'serve',
];

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
