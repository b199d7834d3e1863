import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from './helpers/cli.js';
import { MAX_YAML_DEPTH, parseYaml, tooDeepAt } from '../core/config/yaml.js';

/**
 * Issue 37, items 2 and 4: every file the CLI reads is bounded and typed (a FIFO, /dev/zero, a file past its cap
 * are refused in one line before they are read), nesting is refused by a depth limit, and no YAML problem prints
 * the text of its line. No server: each is refused before any request.
 */

const dir = tempDir('bounded-files-');
const fifo = join(dir, 'endless');
execFileSync('mkfifo', [fifo]);
const target = ['--base-url', 'https://127.0.0.1:1/open', '--secret', 'a', '--key', 'b'];
/** Small: the old code waited on a FIFO forever and read /dev/zero for gigabytes. */
const quick = { timeoutMs: 15_000 };

function refused(r: CliRun, pattern: RegExp): void {
  expect(r.code, r.stderr + r.stdout).toBe(2);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}

describe.concurrent('issue 37: what is not a regular file, or is past its cap, is refused in one line', () => {
  test.each([
    ['a FIFO', fifo, /not a regular file \(a pipe\)/],
    ['/dev/zero', '/dev/zero', /not a regular file \(a device\)/],
  ])('--config, --baseline and verify --key on %s', async (_, path, why) => {
    refused(await runCli(['--config', path], quick), new RegExp(`cannot read config file .*: ${why.source}`));
    refused(await runCli([...target, '--baseline', path], quick), new RegExp(`cannot read baseline .*: ${why.source}`));
    const statement = join(dir, 'attestation.json');
    writeFileSync(statement, '{}');
    writeFileSync(join(dir, 'report.json'), '{}');
    refused(await runCli(['verify', statement, '--key', path], quick), new RegExp(`cannot read key .*: ${why.source}`));
    refused(await runCli([...target, '--ca-file', path], quick), new RegExp(`tls.ca_file .*: ${why.source}`));
  });

  test('a config with a 2 MB value and a baseline of 20 MB are refused before they are read', async () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `base_url: "${'x'.repeat(2 * 1024 * 1024)}"\n`);
    refused(await runCli(['--config', big], quick), /bytes, past the cap of 1048576 bytes \(a config file's cap\)/);
    const baseline = join(dir, 'big-baseline.yaml');
    writeFileSync(baseline, `- id: AUTH-01\n  reason: "${'r'.repeat(20 * 1024 * 1024)}"\n`);
    refused(
      await runCli([...target, '--baseline', baseline], quick),
      /bytes, past the cap of 16777216 bytes \(a baseline's cap\)/,
    );
  });

  test('a config or baseline nested 100,000 deep: refused by the depth limit, no stack overflow', async () => {
    const flow = join(dir, 'deep-flow.yaml');
    writeFileSync(flow, `base_url: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const block = join(dir, 'deep-block.yaml');
    writeFileSync(block, `${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`);
    const dashes = join(dir, 'deep-dashes.yaml');
    writeFileSync(dashes, `${'- '.repeat(50_000)}x\n`);
    for (const f of [flow, block, dashes]) {
      const r = await runCli(['--config', f], quick);
      refused(
        r,
        new RegExp(`is not valid YAML: nested more than ${MAX_YAML_DEPTH} levels deep at line \\d+: not read`),
      );
      expect(r.stderr).not.toMatch(/call stack/);
      const b = await runCli([...target, '--baseline', f], quick);
      refused(b, /baseline .* is not valid YAML: nested more than 64 levels deep/);
    }
  });

  test('a YAML tag or a bad line: the key path and line are named, never the line or a secret under it', async () => {
    const secret = 'sk_live_4f9a8b7c6d5e4f3a2b1c';
    const tagged = join(dir, 'tagged.yaml');
    writeFileSync(tagged, `base_url: https://127.0.0.1:1/open\napp:\n  secret: !vault "${secret}"\n  key: b\n`);
    const r = await runCli(['--config', tagged], quick);
    refused(
      r,
      /config file \S+ is not valid YAML: a YAML tag this reader does not know \(e\.g\. !vault; .*\) at line 3 \(key app\.secret\)$/m,
    );
    expect(r.stderr + r.stdout).not.toContain(secret.slice(0, 8));
    expect(r.stderr).not.toMatch(/Warning|YAMLWarning/);
    const dup = join(dir, 'dup.yaml');
    writeFileSync(dup, `app:\n  secret: ${secret}\n  secret: ${secret}\n`);
    const d = await runCli(['--config', dup], quick);
    refused(d, /a key given twice at line 3 \(key app/);
    expect(d.stderr).not.toContain(secret.slice(0, 8));
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, `app:\n  secret: "${secret}\n  key: [b\n`);
    const b = await runCli(['--config', broken], quick);
    expect(b.code).toBe(2);
    expect(b.stderr).not.toContain(secret.slice(0, 8));
  });
});

describe('the depth scan', () => {
  test('counts flow and block nesting, skips quoted text, comments and block scalars', () => {
    expect(tooDeepAt('a:\n  b:\n    c: [1, {d: 2}]\n')).toBeUndefined();
    expect(tooDeepAt(`a: "${'['.repeat(100)}"\nb: '${'{'.repeat(100)}' # ${'['.repeat(100)}\n`)).toBeUndefined();
    expect(tooDeepAt(`r: |\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i + 2)}x`).join('\n')}\n`)).toBe(
      undefined,
    );
    expect(tooDeepAt(`a: ${'['.repeat(65)}${']'.repeat(65)}`)).toBe(1);
    expect(tooDeepAt(`x: 1\n${'- '.repeat(70)}y\n`)).toBe(2);
    expect(parseYaml('a:\n  b: [1, 2]\n')).toEqual({ a: { b: [1, 2] } });
  });
});
