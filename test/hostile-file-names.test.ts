import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from './helpers/cli.js';
import { yaml } from '../core/config/yaml.js';
import { expectNoControls } from './helpers/ci-log.js';

/**
 * Issue 28: a file name is untrusted text like a server's bytes (a vendor or a capture tool chooses it). Linux allows
 * line breaks, ESC, C1 and bidi controls in names: each subcommand that prints a name or a path is driven through the
 * real CLI with such names, as CI runs it (GITHUB_ACTIONS=true), and every byte it prints is judged.
 */

/** A name that forges an annotation on a line of its own, an old-style command, and terminal and bidi controls. */
const NAME =
  'x\n::error title=FORGED::y ##[error title=FORGED]z \u001b]0;pwned\u0007\u001b[2J \u009b31m \u0085 \u202Eevil\u2066';

/** What a CI log shows of a run: nothing the name put there acts as a command or moves the terminal. */
function expectInert(what: string, run: CliRun): void {
  for (const [stream, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    const where = `${what} ${stream}`;
    expectNoControls(where, text);
    const commands = text
      .split('\n')
      .map((l) => l.trimStart())
      .filter((l) => l.startsWith('::'));
    // The only commands: the block that stops command processing around quoted text, with its random token.
    for (const c of commands) expect(c, where).toMatch(/^::(stop-commands::[0-9a-f]{32}|[0-9a-f]{32}::)$/);
  }
}

describe('hostile file names reach no CI log (issue 28)', () => {
  test('a run, check-har, baseline, diff, merge and openapi print a file name with line breaks, workflow commands and controls as one inert line', async () => {
    const dir = tempDir('conformance-names-');
    const env = { GITHUB_ACTIONS: 'true' };
    const cli = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir, env });

    // A run's report lines, and its HAR under that name.
    const live = await cli([
      '--demo',
      '--fuzz-runs',
      '3',
      '--report-dir',
      `${NAME}-run`,
      '--record-har',
      `${NAME}.har`,
    ]);
    expect(live.code, live.stderr).toBe(0);
    expect(existsSync(join(dir, `${NAME}-run`, 'report.json'))).toBe(true);
    expectInert('run', live);
    // The path is shown, escaped: the reader sees what the name holds.
    expect(live.stdout).toContain('Report: ');
    expect(live.stdout).toContain('x ⏎ ::error title=FORGED::y #\\u0023[error title=FORGED]z \\u001b]0;pwned\\u0007');

    const har = await cli(['check-har', `${NAME}.har`, '--report-dir', `${NAME}-har`]);
    expect(har.code, har.stderr).toBe(0);
    expectInert('check-har', har);
    expect(har.stdout.split('\n')[0]).toContain('recorded exchanges of x ⏎ ::error title=FORGED::y #\\u0023[error');

    const missing = await cli(['check-har', `${NAME}-missing.har`]);
    expect(missing.code).toBe(2);
    expectInert('check-har of a missing file', missing);

    const baseline = await cli(['baseline', join(`${NAME}-run`, 'report.json'), '--out', `${NAME}.yaml`]);
    expect(baseline.code, baseline.stderr).toBe(0);
    expectInert('baseline', baseline);
    // The name in the baseline's header comment starts no line of YAML.
    const written = readFileSync(join(dir, `${NAME}.yaml`), 'utf8');
    expect(
      written
        .split('\n')
        .slice(0, 3)
        .every((l) => l.startsWith('#')),
    ).toBe(true);
    expect(yaml().parse(written)).toEqual([]);

    const diff = await cli(['diff', join(`${NAME}-run`, 'report.json'), join(`${NAME}-har`, 'report.json')]);
    expect([0, 1], diff.stderr).toContain(diff.code);
    expectInert('diff', diff);
    expect(diff.stdout.split('\n')[0]).toMatch(/^Comparing .*x ⏎ ::error title=FORGED/);

    const merge = await cli(['merge', `${NAME}-run`, `${NAME}-har`, '--out', `${NAME}-merged.json`]);
    expect(merge.code, merge.stderr).toBe(0);
    expectInert('merge', merge);
    expect(existsSync(join(dir, `${NAME}-merged.json`))).toBe(true);

    const openapi = await cli(['openapi', '--out', `${NAME}.openapi.yaml`]);
    expect(openapi.code, openapi.stderr).toBe(0);
    expectInert('openapi', openapi);
    expect(existsSync(join(dir, `${NAME}.openapi.yaml`))).toBe(true);
  });
});
