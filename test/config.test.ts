import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import fs from 'node:fs';
import { packageRoot } from '../core/base/paths.js';
import { ConfigError, OPTIONS, readConfigFile, resolveConfig } from '../core/config/config.js';
import { schemaObject } from '../core/spec/schemas.js';
import { FIXTURE_ENV } from '../reference/fixtures.js';
import { runCli } from './helpers/cli.js';
import { withServer } from './helpers/target.js';

/**
 * config.example.yaml with every commented-out setting uncommented: a line `# key: value` (at any indentation, the
 * `# ` taken away) whose key is lower case, as every config key is; the prose comments start with a capital or a
 * word that is no key.
 */
const uncommented = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/^(\s*)# ?((?:\s*)[a-z_]+:(?:\s|$))/, '$1$2'))
    .join('\n');

describe('config', () => {
  test('config.example.yaml is a valid config once its ${...} references are set, and documents every key', () => {
    const file = readConfigFile(join(packageRoot, 'config.example.yaml'), {
      CONFORMANCE_SECRET: 'pk',
      CONFORMANCE_KEY: 'sk',
    });
    const c = resolveConfig({ file, env: {}, flags: {} });
    expect(c.app).toEqual({ secret: 'pk', key: 'sk' });
    const text = fs.readFileSync(join(packageRoot, 'config.example.yaml'), 'utf8');
    const keys = Object.keys((schemaObject('config') as { properties: object }).properties);
    for (const k of keys) expect(text, `config.example.yaml documents ${k}`).toMatch(new RegExp(`^#? ?${k}:`, 'm'));
  });

  test('config.example.yaml fully uncommented runs with the variables the README and --help name, and only those', async () => {
    const example = fs.readFileSync(join(packageRoot, 'config.example.yaml'), 'utf8');
    const text = uncommented(example);
    // Every setting the example shows is live now, the optional applications included.
    for (const k of ['other_app:', 'disabled_app:', 'ca_file:', 'rate_limit:', 'max_details:', 'seed:', 'baseline:'])
      expect(text).toMatch(new RegExp(`^\\s*${k}`, 'm'));
    // The references it makes are the documented CONFORMANCE_* variables of the options table.
    const refs = [...text.replace(/^\s*#.*$/gm, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
    expect(new Set(refs)).toEqual(new Set(Object.keys(FIXTURE_ENV)));
    for (const r of refs)
      expect(
        OPTIONS.map((o) => o.env),
        r,
      ).toContain(r);

    await withServer([], async (srv) => {
      const dir = tempDir('example-');
      fs.writeFileSync(join(dir, 'conformance.yaml'), text);
      // The files it names, beside it: the CA of the server, an empty baseline.
      fs.copyFileSync(srv.caFile!, join(dir, 'my-ca.pem'));
      fs.writeFileSync(join(dir, 'known-failures.yaml'), '[]\n');
      const run = await runCli(
        [
          '--config',
          'conformance.yaml',
          ...['AUTH-01', 'ISO-01', 'AUTH-09', 'AUTH-10'].flatMap((id) => ['--only', id]),
        ],
        {
          cwd: dir,
          env: { ...FIXTURE_ENV, CONFORMANCE_BASE_URL: srv.baseUrl },
        },
      );
      expect(run.stderr).not.toMatch(/not set/);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.report?.checks.map((c) => [c.id, c.outcome]).sort()).toEqual([
        ['AUTH-01', 'passed'],
        ['AUTH-09', 'passed'],
        ['AUTH-10', 'passed'],
        ['ISO-01', 'passed'],
      ]);
    });
  }, 120_000);

  test('every option has a flag, an env variable and a config key the schema knows', () => {
    const props = (schemaObject('config') as { properties: Record<string, { properties?: object; $ref?: string }> })
      .properties;
    for (const o of OPTIONS) {
      expect(o.env).toMatch(/^CONFORMANCE_[A-Z_]+$/);
      expect(props[o.key.split('.')[0]!], o.key).toBeDefined();
    }
  });

  test('flags win over the environment, which wins over the file', () => {
    const file = { base_url: 'https://file.test/open', app: { secret: 'f', key: 'f' }, concurrency: 1, timeout_ms: 5 };
    const c = resolveConfig({
      file,
      env: { CONFORMANCE_CONCURRENCY: '2', CONFORMANCE_TIMEOUT_MS: '6' },
      flags: { 'timeout-ms': '7' },
    });
    expect(c.concurrency).toBe(2);
    expect(c.timeout_ms).toBe(7);
    expect(c.base_url).toBe('https://file.test/open');
  });

  test('max_details: a sample of 1000 per resource unless set; all checks every record', () => {
    const base = { base_url: 'https://x.test', app: { secret: 'a', key: 'b' } };
    expect(resolveConfig({ file: base, env: {}, flags: {} }).max_details).toBe(1000);
    expect(resolveConfig({ file: base, env: {}, flags: { 'max-details': 'all' } }).max_details).toBeUndefined();
    expect(resolveConfig({ file: { ...base, max_details: 'all' }, env: {}, flags: {} }).max_details).toBeUndefined();
    expect(resolveConfig({ file: base, env: { CONFORMANCE_MAX_DETAILS: '20' }, flags: {} }).max_details).toBe(20);
    expect(() => resolveConfig({ file: base, env: {}, flags: { 'max-details': 'some' } })).toThrow(ConfigError);
  });

  test('an unset ${VAR} in the file is a one-line config error naming the key', () => {
    const dir = tempDir('c-');
    const f = join(dir, 'c.yaml');
    fs.writeFileSync(f, 'app:\n  key: ${NOPE_NOT_SET}\n');
    expect(() => readConfigFile(f, {})).toThrow(
      new ConfigError('config key app.key refers to ${NOPE_NOT_SET}, which is not set in the environment'),
    );
  });

  test('wrong types name the key', () => {
    expect(() =>
      resolveConfig({
        file: { base_url: 'https://x.test', app: { secret: 'a', key: 'b' }, concurrency: 'many' },
        env: {},
        flags: {},
      }),
    ).toThrow('config key concurrency "many": must be an integer from 1 to 256');
    expect(() =>
      resolveConfig({
        file: { base_url: 'https://x.test', app: { secret: 'a', key: 'b' }, tls: { insecur: true } },
        env: {},
        flags: {},
      }),
    ).toThrow('unknown config key tls.insecur (did you mean tls.insecure?)');
  });
});
