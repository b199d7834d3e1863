import { expect, test } from 'vitest';
import { startsChecks } from '../app/early-worker.js';

// bin/conformance.js forks the checks' process before the CLI loads only for a command line that runs checks.
test('the checks process is forked early for a run, never for a command, help, the version or the list', () => {
  for (const argv of [[], ['--base-url', 'https://h/open'], ['--demo'], ['--demo', '--only', 'AUTH-01'], ['-q']])
    expect(startsChecks(argv), argv.join(' ')).toBe(true);
  for (const argv of [
    ['serve'],
    ['openapi', '--out', 'x'],
    ['check-har', 'a.har'],
    ['--help'],
    ['--demo', '-h'],
    ['--version'],
    ['-V'],
    ['--list'],
  ])
    expect(startsChecks(argv), argv.join(' ')).toBe(false);
});
