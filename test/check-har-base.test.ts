import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { runCli } from './helpers/cli.js';

describe('check-har --base-url', () => {
  test('a --base-url no recorded request went to is named, with the base URL the recording holds; the right one is not', async () => {
    const cwd = tempDir('check-har-base-');
    const rec = await runCli(['--demo', '--quiet', '--record-har', 'run.har'], { cwd });
    expect(rec.code, rec.stderr).toBe(0);
    const recorded = /listening at (\S+)/.exec(rec.stdout)![1]!;

    const wrong = await runCli(['check-har', 'run.har', '--base-url', 'https://api.example.com/open', '--quiet'], {
      cwd,
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stdout).toContain(
      `Warning: no request of the recording went to --base-url https://api.example.com/open; its API was called at ${recorded}:`,
    );

    const right = await runCli(['check-har', 'run.har', '--base-url', `${recorded}/`, '--quiet'], { cwd });
    expect(right.code, right.stdout).toBe(0);
    expect(right.stdout).not.toMatch(/Warning: no request/);
  }, 120_000);
});
