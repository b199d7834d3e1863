import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';
import type { Variant } from '../reference/server.js';

const creds = ['--base-url', 'https://127.0.0.1:9/open', '--secret', 'a', '--key', 'b'];

/** One convention for every subcommand: help, did-you-mean, one wording of value errors (issue 25, item 3). */
describe.concurrent('command-line suggestions and help', () => {
  test('conformance help [command] prints what command --help prints (exit 0); an unknown command is named', async () => {
    const commands = ['openapi', 'serve', 'check-har', 'baseline', 'diff', 'merge', 'catalogue'];
    const runs = await Promise.all(
      commands.flatMap((c) => [runCli(['help', c]), runCli([c, '--help'])]).concat([runCli(['help']), runCli(['-h'])]),
    );
    for (const [i, command] of commands.entries()) {
      const [viaHelp, viaFlag] = [runs[2 * i]!, runs[2 * i + 1]!];
      expect(viaHelp.code, `help ${command}: ${viaHelp.stderr}`).toBe(0);
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: conformance ${command}\\b`));
      expect(viaHelp.stdout).toBe(viaFlag.stdout);
    }
    const [help, top] = runs.slice(-2);
    expect(help!.code).toBe(0);
    expect(help!.stdout).toBe(top!.stdout);
    expect(help!.stdout).toContain('conformance help [command]');
    const typo = await runCli(['help', 'srve']);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(/^conformance: help: no command "srve" \(did you mean serve\?\)/);
    expect(typo.stderr.trim().split('\n')).toHaveLength(1);
  });

  test.each([
    [['serve', '--prot', '1'], 'conformance: serve: unknown option --prot (did you mean --port?) (see serve --help)'],
    [
      ['openapi', '--fromat', 'json'],
      'conformance: openapi: unknown option --fromat (did you mean --format?) (see openapi --help)',
    ],
    [
      ['check-har', '--base-ulr', 'x', 'a.har'],
      'conformance: check-har: unknown option --base-ulr (did you mean --base-url?) (see check-har --help)',
    ],
    [
      ['baseline', '--outt', 'x'],
      'conformance: baseline: unknown option --outt (did you mean --out?) (see baseline --help)',
    ],
    [
      ['merge', '--ot', 'x', 'a.json'],
      'conformance: merge: unknown option --ot (did you mean --out?) (see merge --help)',
    ],
    [['diff', '--hlep'], 'conformance: diff: unknown option --hlep (did you mean --help?) (see diff --help)'],
    [
      ['catalogue', '--hepl'],
      'conformance: catalogue: unknown option --hepl (did you mean --help?) (see catalogue --help)',
    ],
    [
      [...creds, '--concurency', '2'],
      'conformance: unknown option --concurency (did you mean --concurrency?) (see --help)',
    ],
    [['serve', '--port'], 'conformance: serve: --port needs a value'],
  ])('%j names the flag and the closest one, in one line (exit 2)', async (args, line) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith(line), run.stderr).toBe(true);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a misspelt config key is named (not reported as a missing base_url)', async () => {
    const dir = tempDir('suggest-');
    writeFileSync(join(dir, 'c.yaml'), 'base_ulr: https://127.0.0.1:9/open\napp:\n  secret: a\n  key: b\n');
    writeFileSync(join(dir, 'd.yaml'), 'base_url: https://127.0.0.1:9/open\napp:\n  secret: a\n  kye: b\n');
    const [run, nested] = await Promise.all([
      runCli(['--config', 'c.yaml'], { cwd: dir }),
      runCli(['--config', 'd.yaml'], { cwd: dir }),
    ]);
    expect([run.code, run.stderr]).toEqual([2, 'conformance: unknown config key base_ulr (did you mean base_url?)\n']);
    expect(nested.stderr).toBe('conformance: unknown config key app.kye (did you mean app.key?)\n');
  });

  test('patterns and baseline ids suggest what exists; value errors say what is accepted; no raw Node errors', async () => {
    const dir = tempDir('suggest-');
    writeFileSync(join(dir, 'b.yaml'), '- id: ERR-6\n  reason: typo\n');
    writeFileSync(
      join(dir, 'm.yaml'),
      'base_url: https://127.0.0.1:9/open\napp: {secret: a, key: b}\nmax_details: none\n',
    );
    const cases: Array<[string[], string]> = [
      [[...creds, '--only', 'ISO'], 'conformance: --only ISO matches no check (did you mean ISO-*?)'],
      [[...creds, '--skip', 'INFO-AUTH'], 'conformance: --skip INFO-AUTH matches no check (did you mean INFO-AUTH-*?)'],
      [
        [...creds, '--baseline', 'b.yaml'],
        'conformance: baseline b.yaml lists ERR-6, which is not a check of this suite (did you mean ERR-06',
      ],
      [[...creds, '--max-details', 'none'], 'conformance: --max-details none: must be an integer of at least 0 or all'],
      [['--config', 'm.yaml'], 'conformance: config key max_details "none": must be an integer of at least 0 or all'],
      [['serve', '--size', 'huge'], 'conformance: serve: --size huge: must be fixture or large'],
      [['serve', '--port', 'x'], 'conformance: serve: --port x: must be an integer from 0 to 65535'],
      [[...creds, '--baseline', 'gone.yaml'], 'conformance: cannot read baseline gone.yaml: no such file'],
      [['baseline', 'gone.json'], 'conformance: cannot read report gone.json: no such file'],
      [['diff', 'gone.json', 'b.yaml'], 'conformance: cannot read report gone.json: no such file'],
      [['--config', 'gone.yaml'], 'conformance: cannot read config file gone.yaml: no such file'],
      [['openapi', '--out', 'gone/api.yaml'], 'conformance: --out gone/api.yaml: cannot write it: no such file'],
      [
        ['--demo', '--record-har', 'gone/run.har'],
        'conformance: --record-har gone/run.har: cannot write there: no such file',
      ],
      [['serve', '--fault', '502'], 'conformance: serve: --fault 502: unknown fault "502" (one of: latency=MS'],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(args, { cwd: dir })));
    for (const [i, [args, line]] of cases.entries()) {
      const run = runs[i]!;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.startsWith(line), `${args.join(' ')}: ${run.stderr}`).toBe(true);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).not.toMatch(/ENOENT|Unknown option|must be integer\b/);
    }
  });
});

/** Issue 25 item 4: the terminal says why a check judged nothing, on the check's own line. */
describe.concurrent('the terminal says why', () => {
  test('a skipped check prints its reason on its line: not configured, and blocked by another finding', async () => {
    const merchantIdText: Variant = {
      name: 'merchant-id-text',
      description: '/merchant answers its id as text',
      handle: (req, next) => {
        const reply = next();
        if (req.path !== '/merchant') return reply;
        const body = structuredClone(reply.body) as { data: { id: unknown } };
        body.data.id = 'one';
        return { ...reply, body };
      },
    };
    await withServer([merchantIdText], async (srv) => {
      const env = { CONFORMANCE_SECRET: targetEnv.CONFORMANCE_SECRET!, CONFORMANCE_KEY: targetEnv.CONFORMANCE_KEY! };
      const run = await runCli(targetArgs(srv, ['--only', 'CONS-*', '--only', 'ISO-01', '--only', 'AUTH-09']), { env });
      const lines = run.stdout.split('\n').filter((l) => /^ {2}SKIP /.test(l));
      expect(lines.length, run.stdout).toBeGreaterThan(2);
      for (const l of lines) expect(l, l).toMatch(/^ {2}SKIP +\S+ +.+ — (blocked|not configured): \S/);
      expect(run.stdout).toMatch(/^ {2}SKIP +ISO-01 .* — not configured: needs other_app\b/m);
      expect(run.stdout).toMatch(
        /^ {2}SKIP +AUTH-09 .* — not configured: needs disabled_app\.secret and disabled_app\.key\b/m,
      );
      expect(run.stdout).toMatch(/^ {2}SKIP +CONS-\S+ .* — blocked: .*\/merchant id is "one"/m);
      // The coverage names the keys to set, not an internal name.
      expect(run.report!.coverage.text).toContain('needs disabled_app.secret and disabled_app.key');
      expect(run.stdout).not.toContain('disabled_app_keys');
    });
  });

  test("--help says each option's default once", async () => {
    const run = await runCli(['--help']);
    for (const line of run.stdout.split('\n').filter((l) => /^ {2}--/.test(l)))
      expect(line.match(/default/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    expect(run.stdout).toMatch(
      /--rate-limit <per-second> +Most requests started in any second \(paced 5% under it\) \[default: no limit\]/,
    );
  });
});
