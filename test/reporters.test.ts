import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { curlCommand, shellWord, tokenCommand } from '../reporters/evidence.js';
import { esc, html } from '../reporters/html-escape.js';
import { renderHtml } from '../reporters/html.js';
import { renderJunit, xmlAttr, xmlText } from '../reporters/junit.js';
import { annotations, escapeData, escapeProperty, stepSummary } from '../reporters/github.js';
import { oneLine, summaryText } from '../reporters/terminal.js';
import { Redactor } from '../core/redact/redact.js';
import { applyBaseline, baselineFromReport, legacyWarnings, parseBaseline } from '../app/baseline.js';
import { diffReports, diffText } from '../app/diff.js';
import {
  buildReport,
  VERDICT_MEANING,
  VERDICT_ORDER,
  VERDICT_WORD,
  type Report,
  type Verdict,
} from '../core/model/report.js';
import { packageRoot } from '../core/base/paths.js';
import type { Level } from '../core/model/check.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { PAYLOADS } from '../reference/variants-hostile-content.js';
import { bigReport, exchange, record, reportOf } from './helpers/sample-report.js';
import { xmllint } from './helpers/xmllint.js';

/** Runs a curl line through a real POSIX shell with printf in curl's place: the arguments curl would get. */
function argvOf(command: string, env: Record<string, string>): string[] {
  const out = execFileSync('/bin/sh', ['-c', command.replace(/^curl /, `printf '%s\\0' `)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

describe('curl reproduction', () => {
  const env = {
    OPEN_TOKEN: `tok 'a"b$c\`d\\e`,
    CONFORMANCE_SECRET: 'pk&x=1 $(id)',
    CONFORMANCE_KEY: "sk'; rm -rf ~; '",
  };

  test('a POSIX shell gets exactly the recorded request, secrets from the environment, server text inert', () => {
    const hostile = `/open/dishes/'$(touch /tmp/pwned)\`id\`"; echo "[x]{a,b}*?`;
    const e = exchange({
      url: `https://api.example${hostile}?secret=[REDACTED:public-key]&key=[REDACTED:secret-key]-wrong`,
    });
    const argv = argvOf(curlCommand(e, { caFile: "/tmp/my ca's.pem" }), env);
    expect(argv).toEqual([
      '-sS',
      '-i',
      '-g',
      '--path-as-is',
      '--cacert',
      "/tmp/my ca's.pem",
      '-H',
      'accept: application/json',
      '-H',
      'content-type: application/json; charset=utf-8',
      '-H',
      `open-token: ${env.OPEN_TOKEN}`,
      `https://api.example${hostile}?secret=${env.CONFORMANCE_SECRET}&key=${env.CONFORMANCE_KEY}-wrong`,
    ]);
  });

  test('every hostile payload survives shell quoting byte for byte (NUL aside, which no argument can hold)', () => {
    for (const p of PAYLOADS) {
      const value = p.replace(/\0/g, '');
      expect(argvOf(`curl ${shellWord(value)}`, env)).toEqual([value]);
    }
  });

  test('a GET with a body is reproduced as a GET: -X GET, its Content-Type, --data-raw with the secrets as variables', () => {
    const url = 'https://h/open/auth';
    const json = {
      ...exchange(),
      request: {
        method: 'GET',
        url,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"secret":"[REDACTED:public-key]","key":"[REDACTED:secret-key]"}',
      },
    };
    expect(argvOf(curlCommand(json), env)).toEqual([
      '-sS',
      '-i',
      '-g',
      '--path-as-is',
      '-X',
      'GET',
      '-H',
      'content-type: application/json; charset=utf-8',
      '--data-raw',
      `{"secret":"${env.CONFORMANCE_SECRET}","key":"${env.CONFORMANCE_KEY}"}`,
      url,
    ]);
    const form = {
      ...json,
      request: {
        ...json.request,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'secret=[REDACTED:public-key]&key=@[REDACTED:secret-key]',
      },
    };
    // A form a pair at a time, curl encoding each value (the secret's variable as the run encoded the secret); a value
    // that starts with @ is no file name after name=.
    expect(argvOf(curlCommand(form), env).slice(4)).toEqual([
      '-X',
      'GET',
      '-H',
      'content-type: application/x-www-form-urlencoded',
      '--data-urlencode',
      `secret=${env.CONFORMANCE_SECRET}`,
      '--data-urlencode',
      `key=@${env.CONFORMANCE_KEY}`,
      url,
    ]);
    // Literal text is decoded once, for curl to encode again; a form curl could misread goes as it is.
    const literal = { ...form, request: { ...form.request, body: 'q=a+b%26c%2B' } };
    expect(argvOf(curlCommand(literal), env).slice(-3)).toEqual(['--data-urlencode', 'q=a b&c+', url]);
    for (const raw of ['@file=x', 'a=%zz', 'novalue'])
      expect(argvOf(curlCommand({ ...form, request: { ...form.request, body: raw } }), env).slice(-3)).toEqual([
        '--data-raw',
        raw,
        url,
      ]);
    // Without a body, a GET is curl's default: no -X, no data.
    expect(curlCommand({ ...json, request: { method: 'GET', url, headers: {} } })).toBe(
      "curl -sS -i -g --path-as-is 'https://h/open/auth'",
    );
  });

  test('other methods, HEAD, insecure TLS and network errors still give a command', () => {
    const post = {
      ...exchange({ error: 'connection reset by the server' }),
      request: { method: 'POST', url: 'https://h/open/orders', headers: {} },
    };
    expect(curlCommand(post, { insecure: true })).toBe(
      "curl -sS -i -g --path-as-is -X 'POST' -k 'https://h/open/orders'",
    );
    const head = { ...exchange(), request: { method: 'HEAD', url: 'https://h/open/seats', headers: {} } };
    expect(curlCommand(head)).toBe("curl -sS -i -g --path-as-is -I 'https://h/open/seats'");
    expect(shellWord('[REDACTED:disabled-token]')).toBe('"$CONFORMANCE_DISABLED_TOKEN"');
    expect(shellWord('')).toBe("''");
    // The altered token of the UNAUTH checks is rebuilt from $OPEN_TOKEN by the shell, as the check built it.
    expect(argvOf(`curl ${shellWord('[REDACTED:altered-token]')}`, env)).toEqual([`${env.OPEN_TOKEN.slice(0, -1)}~`]);
    expect(tokenCommand('https://h/open')).toContain(
      `-G --data-urlencode 'secret='"$CONFORMANCE_SECRET" --data-urlencode 'key='"$CONFORMANCE_KEY" 'https://h/open/auth' | jq -r .data.app_token`,
    );
  });

  test("keys in a query go through curl -G --data-urlencode (encoded by curl), the query's other pairs byte for byte", () => {
    const url = 'https://h/open/auth';
    const auth = exchange({ url: `${url}?secret=[REDACTED:public-key]&x=%2e+&key=[REDACTED:secret-key]` });
    const argv = argvOf(curlCommand(auth), env);
    expect(argv.slice(argv.indexOf('-G'))).toEqual([
      '-G',
      '--data-urlencode',
      `secret=${env.CONFORMANCE_SECRET}`,
      '--data-raw',
      'x=%2e+',
      '--data-urlencode',
      `key=${env.CONFORMANCE_KEY}`,
      url,
    ]);
    // A secret that is not a whole value (a derived key), or a query curl could not rebuild: the URL as it was.
    for (const q of ['secret=[REDACTED:public-key]x&key=[REDACTED:secret-key]', 'secret=[REDACTED:public-key]&&k=1'])
      expect(argvOf(curlCommand(exchange({ url: `${url}?${q}` })), env).at(-1)).toBe(
        `${url}?${q.replace('[REDACTED:public-key]', env.CONFORMANCE_SECRET).replace('[REDACTED:secret-key]', env.CONFORMANCE_KEY)}`,
      );
  });

  test('a secret inside a JSON body is JSON-escaped by the shell line: a key with " and \\ still makes valid JSON', () => {
    const keys = { ...env, CONFORMANCE_SECRET: 'pk_"quoted"\\back\\slash', CONFORMANCE_KEY: 'sk_\\"' };
    const json = {
      ...exchange(),
      request: {
        method: 'GET',
        url: 'https://h/open/auth',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"secret":"[REDACTED:public-key]","key":"[REDACTED:secret-key]"}',
      },
    };
    const argv = argvOf(curlCommand(json), keys);
    expect(JSON.parse(argv[argv.indexOf('--data-raw') + 1]!)).toEqual({
      secret: keys.CONFORMANCE_SECRET,
      key: keys.CONFORMANCE_KEY,
    });
  });
});

describe('HTML escaping', () => {
  test('one escape function: markup, quotes and control characters never pass raw', () => {
    expect(esc(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
    expect(esc('a\u0000b\u001bc')).toBe('a\\u0000b\\u001bc');
    expect(html`<p title="${'"><svg onload=x>'}">${'<b>'}${html`<i>ok</i>`}${['<a>', html`<br>`]}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;svg onload=x&gt;">&lt;b&gt;<i>ok</i>&lt;a&gt;<br></p>',
    );
  });

  test('a report full of payloads has no markup of theirs: only our one script and our one style element', () => {
    const rec = record('XSS-01', 'failed', {
      title: PAYLOADS[0]!,
      spec: PAYLOADS[2]!,
      message: PAYLOADS.join(' '),
      notes: PAYLOADS,
      evidence: PAYLOADS.map((p) =>
        exchange({ url: `https://h/open/${p}`, body: JSON.stringify({ msg: p }), headers: { 'x-evil': p } }),
      ),
      fuzz: { seed: 1, path: PAYLOADS[1]!, counterexample: PAYLOADS[3]!, shrinks: 2, replay: PAYLOADS[4]! },
    });
    const page = renderHtml(
      reportOf([rec, record('INFO-X', 'passed', { level: 'INFO', observation: PAYLOADS[5]! })], [PAYLOADS[6]!]),
    );
    expect(page.match(/<script/gi)).toHaveLength(1);
    expect(page.match(/<style/gi)).toHaveLength(1);
    expect(page).not.toMatch(/<(svg onload|img|iframe|a href="javascript)/i);
    expect(page).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(page).toContain('&lt;script&gt;window.__pwned=1');
    // The fuzz failure shows its seed, path and counterexample; the INFO observation lands in the profile.
    expect(page).toMatch(/<dt>fuzz seed<\/dt><dd><code>1<\/code>/);
    expect(page).toContain(`<dt>counterexample</dt><dd><code>${esc(PAYLOADS[3])}</code>`);
    expect(page).toMatch(/<h2 id="profile">Implementation profile<\/h2>[\s\S]*INFO-X/);
  });
});

describe('JUnit XML', () => {
  test('characters illegal in XML 1.0 are replaced; markup and quotes escaped', () => {
    expect(xmlText('a\u0000b\u0008c\uFFFEd\uD800e<&>')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe&lt;&amp;&gt;');
    expect(xmlAttr('x"y\'\n\tz')).toBe('x&quot;y&apos;&#10;&#9;z');
  });

  test('one testcase per check with failure, skipped and error; validates against the JUnit XSD', () => {
    const report = reportOf(
      [
        record('A-01', 'passed'),
        record('A-02', 'failed', {
          message: PAYLOADS.join('\n'),
          evidence: [exchange({ body: PAYLOADS.join('') }), exchange({ error: 'timeout' })],
        }),
        record('A-03', 'skipped', { message: 'not configured: needs other_app' }),
        record('A-04', 'error', { message: 'internal error of the suite' }),
        record('A-05', 'failed', { level: 'SHOULD', area: 'dishes' }),
        record('A-06', 'passed', { baseline: { state: 'stale', reason: 'was broken' } }),
      ],
      ['worker crashed \u0001'],
    );
    const xml = renderJunit(report);
    const lint = xmllint(xml);
    expect(lint.out).toContain('validates');
    expect(lint.ok).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml).toContain('<testcase classname="auth" name="A-02 title of A-02"');
    expect(xml).toMatch(/<skipped message="not configured: needs other_app"\/>/);
    expect(xml).toMatch(/<error message="internal error of the suite" type="ERROR">/);
    expect(xml).toMatch(/<failure message="A-06 passes now but is listed in the baseline/);
    // A SHOULD failure is a warning: visible in <system-out>, never a <failure> a widget counts.
    expect(xml).toMatch(/name="A-05 title of A-05"[^>]*><system-out>WARN \(does not fail the run\)/);
    expect(xml).toMatch(/<testsuites name="[^"]*" tests="7" failures="2" errors="2" time="1.234">/);
    expect(xml).toContain('<property name="conformance.verdict" value="not conformant"/>');
    expect(xml).toContain("reproduce: curl -sS -i -g --path-as-is --cacert '/etc/ca.pem'");
  });
});

describe('GitHub Actions output', () => {
  const redactor = new Redactor();
  redactor.add('s3cr3t-key-value', 'secret-key');

  test('workflow-command escaping follows GitHub rules', () => {
    expect(escapeData('50% done\r\n::error::x')).toBe('50%25 done%0D%0A::error::x');
    expect(escapeProperty('A-01: a, b')).toBe('A-01%3A a%2C b');
  });

  test('::error for failed MUST checks, ::warning for SHOULD and known failures, secrets redacted, one line each', () => {
    const report = reportOf([
      record('M-01', 'failed', { message: 'got s3cr3t-key-value\n::set-env name=X::y' }),
      record('S-01', 'failed', { level: 'SHOULD' }),
      record('K-01', 'failed', { baseline: { state: 'known', reason: 'ticket 42' } }),
      record('P-01', 'passed'),
    ]);
    const text = annotations(report, redactor);
    const lines = text.trim().split('\n');
    // In the report's stable order (area, then id), not in completion order.
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^::warning title=K-01 KNOWN::known failure \(baseline: ticket 42\)/);
    expect(lines[1]).toBe(
      '::error title=M-01 FAIL::[MUST §4] title of M-01: got [REDACTED:secret-key] ⏎ ::set-env name=X::y',
    );
    expect(lines[2]).toMatch(/^::warning title=S-01 WARN::/);
  });

  test('the step summary is Markdown with no markup or secret from the server', () => {
    const md = stepSummary(
      reportOf([record('M-01', 'failed', { message: '<img src=x> [link](http://evil) | s3cr3t-key-value' })]),
      redactor,
    );
    expect(md).toContain('## ❌ Conformance: NOT CONFORMANT');
    expect(md).toContain(
      '| Level | failed | expired | stale | error | incomplete | warned | known | skipped | passed |',
    );
    expect(md).toContain('| MUST | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |');
    expect(md).not.toContain('<img');
    expect(md).not.toContain('](http');
    expect(md).not.toContain('s3cr3t');
    expect(md).toContain('\\[REDACTED\\:secret\\-key\\]');
  });

  test('terminal lines keep server text on one line with no control characters', () => {
    expect(oneLine('a\nb\r\n::error::x\u001b[2J')).toBe('a ⏎ b ⏎ ::error::x\\u001b[2J');
  });
});

/** The report of `checks` in a run of `catalogue` (the CLI's way: coverage counts the catalogue's MUST checks). */
const reportFor = (
  catalogue: Array<{ id: string; level: Level }>,
  checks: ReturnType<typeof record>[],
  more: { strict?: boolean; setupStop?: string } = {},
): Report =>
  buildReport({
    checks,
    catalogue,
    strict: more.strict ?? false,
    baseUrl: 'https://x/open',
    startedAt: new Date(),
    durationMs: 1,
    fuzz: { seed: 1, runs: 1 },
    config: {},
    errors: [],
    ...(more.setupStop ? { setupStop: more.setupStop } : {}),
  });

describe('baseline and diff logic', () => {
  const ids = new Set(['A-01', 'A-02', 'A-03']);

  test('a baseline file is validated against schemas/baseline.schema.json', () => {
    expect(parseBaseline('- id: A-01\n  reason: ticket 1\n  expires: 2030-01-31\n', 'b.yaml', ids)).toEqual([
      { id: 'A-01', reason: 'ticket 1', expires: '2030-01-31' },
    ]);
    expect(() => parseBaseline('- id: A-01\n', 'b.yaml')).toThrow(/missing required field "reason"/);
    expect(() => parseBaseline('- id: A-01\n  reason: x\n  expires: soon\n', 'b.yaml')).toThrow(/expires/);
    expect(() => parseBaseline('- id: A-09\n  reason: x\n', 'b.yaml', ids)).toThrow(/A-09, which is not a check/);
    expect(() => parseBaseline('- {id: A-01, reason: x}\n- {id: A-01, reason: y}\n', 'b.yaml')).toThrow(/twice/);
    expect(() => parseBaseline('a: [', 'b.yaml')).toThrow(/not valid YAML/);
    expect(validate('baseline', [{ id: 'A-01', reason: 'r', extra: 1 }])).not.toEqual([]);
  });

  test('known failures pass the gate, new ones fail it, stale and expired entries fail it', () => {
    const checks = [record('A-01', 'failed'), record('A-02', 'passed'), record('A-03', 'failed', { level: 'SHOULD' })];
    const known = applyBaseline(reportOf(checks), [{ id: 'A-01', reason: 'r' }], '2026-06-01');
    // The gate is green; the word is not: a baselined MUST failure is never CONFORMANT.
    expect(known.exit_code).toBe(0);
    expect(known.verdict).toBe('known failures');
    expect(known.verdict_reason).toBe('1 known MUST failure (A-01), listed in the baseline; nothing new fails');
    expect(known.checks[0]!.baseline).toEqual({ state: 'known', reason: 'r' });
    expect(known.checks[0]!.status).toBe('failed');
    expect(applyBaseline(reportOf(checks), [], '2026-06-01').exit_code).toBe(1);
    const stale = applyBaseline(
      reportOf(checks),
      [
        { id: 'A-01', reason: 'r' },
        { id: 'A-02', reason: 'r' },
      ],
      '2026-06-01',
    );
    expect(stale.checks[1]!.baseline?.state).toBe('stale');
    expect(stale.exit_code).toBe(1);
    const expired = applyBaseline(reportOf(checks), [{ id: 'A-01', reason: 'r', expires: '2026-05-31' }], '2026-06-01');
    expect(expired.checks[0]!.baseline?.state).toBe('expired');
    expect(expired.exit_code).toBe(1);
    expect(
      applyBaseline(reportOf(checks), [{ id: 'A-01', reason: 'r', expires: '2026-06-01' }], '2026-06-01').exit_code,
    ).toBe(0);
  });

  test('a baseline written from a report lists failed MUST checks and keeps existing reasons', () => {
    const report = reportOf([
      record('A-01', 'failed'),
      record('A-02', 'failed'),
      record('A-03', 'failed', { level: 'SHOULD' }),
      record('A-04', 'passed'),
    ]);
    expect(
      baselineFromReport(report, [
        { id: 'A-02', reason: 'ticket 7', expires: '2099-01-01' },
        { id: 'A-04', reason: 'old' },
      ]),
    ).toEqual([
      { id: 'A-01', reason: 'fails since 2026-01-02: message of A-01', fingerprints: ['A-01'] },
      { id: 'A-02', reason: 'ticket 7', expires: '2099-01-01', fingerprints: ['A-02'] },
    ]);
  });

  test('a baseline entry accepts only the fingerprints it lists: another broken record of the same check gates', () => {
    const oneSeat = reportOf([record('C-05', 'failed', { fingerprints: ['seat:21:user_id'] })]);
    const entries = baselineFromReport(oneSeat);
    expect(entries).toEqual([expect.objectContaining({ id: 'C-05', fingerprints: ['seat:21:user_id'] })]);
    expect(applyBaseline(oneSeat, entries, '2026-06-01').exit_code).toBe(0);
    const sixDishes = reportOf([record('C-05', 'failed', { fingerprints: ['dish:1:user_id', 'dish:2:user_id'] })]);
    const judged = applyBaseline(sixDishes, entries, '2026-06-01');
    expect(judged.exit_code).toBe(1);
    expect(judged.checks[0]!.outcome).toBe('failed');
    expect(judged.checks[0]!.baseline).toMatchObject({
      state: 'new',
      new_fingerprints: ['dish:1:user_id', 'dish:2:user_id'],
    });
    // Fewer findings than listed is still known; an old entry without fingerprints accepts any failure of its check.
    const fewer = applyBaseline(
      reportOf([record('C-05', 'failed', { fingerprints: ['seat:21:user_id'] })]),
      [{ id: 'C-05', reason: 'r', fingerprints: ['seat:21:user_id', 'seat:22:user_id'] }],
      '2026-06-01',
    );
    expect(fewer.checks[0]!.outcome).toBe('known');
    expect(applyBaseline(sixDishes, [{ id: 'C-05', reason: 'r' }], '2026-06-01').checks[0]!.outcome).toBe('known');
    expect(legacyWarnings([{ id: 'C-05', reason: 'r' }], 'b.yaml')[0]).toMatch(/C-05 has no fingerprints/);
  });

  test('the verdict: PARTIAL when MUST checks did not run, INCOMPLETE when one did not finish, --strict turns PARTIAL into exit 3', () => {
    const catalogue = [
      { id: 'A-01', level: 'MUST' as const },
      { id: 'A-02', level: 'MUST' as const },
      { id: 'A-03', level: 'SHOULD' as const },
    ];
    const build = (checks: ReturnType<typeof record>[], strict = false) => reportFor(catalogue, checks, { strict });
    const partial = build([
      record('A-01', 'passed'),
      record('A-02', 'skipped', { unmet: 'other_app', message: 'not configured' }),
    ]);
    expect([partial.verdict, partial.exit_code]).toEqual(['partial', 0]);
    expect(partial.coverage.text).toBe('1 MUST check not run or not run in full (1 needs other_app)');
    expect(build([record('A-01', 'passed'), record('A-02', 'skipped', { unmet: 'other_app' })], true).exit_code).toBe(
      3,
    );
    expect(build([record('A-01', 'passed')]).coverage.not_run).toEqual([{ id: 'A-02', why: 'not selected' }]);
    expect(
      build([record('A-01', 'passed'), record('A-02', 'passed', { sampled: '500 of 20000 dishes' })]).verdict,
    ).toBe('partial');
    const incomplete = build([
      record('A-01', 'passed'),
      record('A-02', 'incomplete', { message: 'could not finish: timeout' }),
    ]);
    expect([incomplete.verdict, incomplete.exit_code]).toEqual(['incomplete', 3]);
    // A gating finding stands whatever else did not finish; an unfinished SHOULD check does not stop a verdict.
    expect(build([record('A-01', 'failed'), record('A-02', 'incomplete')]).verdict).toBe('not conformant');
    expect(
      build([record('A-01', 'passed'), record('A-02', 'passed'), record('A-03', 'incomplete', { level: 'SHOULD' })])
        .verdict,
    ).toBe('conformant');
    expect(
      build([record('A-01', 'passed'), record('A-02', 'passed'), record('A-03', 'failed', { level: 'SHOULD' })])
        .exit_code,
    ).toBe(0);
  });

  test('verdictOf gives every verdict its words and exit code, and every output renders the same words', () => {
    const catalogue = [
      { id: 'A-01', level: 'MUST' as const },
      { id: 'A-02', level: 'MUST' as const },
      { id: 'A-03', level: 'SHOULD' as const },
      { id: 'A-04', level: 'INFO' as const },
    ];
    const build = (checks: ReturnType<typeof record>[], more: { strict?: boolean; setupStop?: string } = {}) =>
      reportFor(catalogue, checks, more);
    const known = { baseline: { state: 'known' as const, reason: 'ticket 7' } };
    const pass = [record('A-01', 'passed'), record('A-02', 'passed')];
    const cases: Array<[Verdict, Report, RegExp]> = [
      ['conformant', build([...pass, record('A-03', 'passed', { level: 'SHOULD' })]), /^every MUST check .* \(2\)$/],
      ['partial', build([record('A-01', 'passed')]), /^1 MUST check not run or not run in full \(1 not selected\)$/],
      // A baseline entry used for a SHOULD check: nothing gates, but the run is not CONFORMANT either.
      [
        'partial',
        build([...pass, record('A-03', 'failed', { level: 'SHOULD', ...known })]),
        /^the baseline excuses 1 finding \(A-03\)$/,
      ],
      [
        'known failures',
        build([record('A-01', 'failed', known), record('A-02', 'passed')]),
        /^1 known MUST failure \(A-01\), listed in the baseline; nothing new fails$/,
      ],
      // Known failures and MUST checks not run: both said.
      ['known failures', build([record('A-01', 'failed', known)]), /nothing new fails; 1 MUST check not run/],
      [
        'not conformant',
        build([record('A-01', 'failed', known), record('A-02', 'failed')]),
        /^1 gating finding: A-02$/,
      ],
      ['incomplete', build([record('A-01', 'passed'), record('A-02', 'incomplete')]), /did not finish \(A-02\)/],
      // Only SHOULD and INFO checks ran: no MUST check judged, never PASSED.
      [
        'nothing judged',
        build([record('A-03', 'passed', { level: 'SHOULD' }), record('A-04', 'passed', { level: 'INFO' })]),
        /^no MUST check was judged: 2 MUST checks not run or not run in full \(2 not selected\)$/,
      ],
      // Every MUST check skipped (a recording without what they need) is no better.
      [
        'nothing judged',
        build([record('A-01', 'skipped', { unmet: 'other_app' }), record('A-02', 'skipped', { unmet: 'other_app' })]),
        /\(2 need other_app\)$/,
      ],
      ['nothing judged', build([], { setupStop: 'no /auth endpoint at https://x/open' }), /^no \/auth endpoint/],
    ];
    const redactor = new Redactor();
    for (const [verdict, r, reason] of cases) {
      const word = VERDICT_WORD[verdict];
      expect([r.verdict, r.exit_code], r.verdict_reason).toEqual([verdict, VERDICT_MEANING[verdict].exit]);
      expect(r.verdict_reason).toMatch(reason);
      expect(validate('report', r)).toEqual([]);
      // CONFORMANT (not after NOT) is the conformant run's word alone, in every output.
      const claims = (text: string): boolean => /(?<!NOT )CONFORMANT/.test(text);
      const terminal = summaryText(r, []);
      expect(terminal.split('\n')[1]).toBe(`${word}: ${r.verdict_reason}`);
      expect(terminal.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^${word}: MUST .*exit ${r.exit_code}\\)$`));
      const page = renderHtml(r);
      expect(page).toContain(`<div class="verdict ${verdict.replace(/ /g, '-')}">${word}</div>`);
      const xml = renderJunit(r);
      expect(xmllint(xml).ok).toBe(true);
      expect(xml).toContain(`<property name="conformance.verdict" value="${verdict}"/>`);
      expect(xml).toContain(`<property name="conformance.verdict_word" value="${word}"/>`);
      // A run that judged nothing gets an annotation saying why the job fails; no other verdict gets one of its own.
      expect(annotations(r, redactor).includes('::error title=NOTHING JUDGED::')).toBe(verdict === 'nothing judged');
      const md = stepSummary(r, redactor);
      expect(md.split('\n')[0]).toMatch(new RegExp(`^## \\S+ Conformance: ${word}$`));
      for (const text of [terminal, page, xml, md]) expect(claims(text), verdict).toBe(verdict === 'conformant');
      // A run that judged nothing shows it in the JUnit widget too (it exits 3): one <error> saying why.
      expect(/<testcase classname="verdict" name="a MUST check was judged"[^>]*><error /.test(xml)).toBe(
        verdict === 'nothing judged',
      );
    }
    // Strict: a partial run exits 3, its words stay PARTIAL; a baseline does not excuse the MUST checks not run.
    const strict = build([record('A-01', 'passed')], { strict: true });
    expect([strict.verdict, strict.exit_code]).toEqual(['partial', 3]);
    const strictKnown = build([record('A-01', 'failed', known)], { strict: true });
    expect([strictKnown.verdict, strictKnown.exit_code]).toEqual(['known failures', 3]);
    expect(strictKnown.verdict_reason).toMatch(/; --strict: a partial run does not pass$/);
    expect(build([record('A-01', 'failed', known), record('A-02', 'passed')], { strict: true }).exit_code).toBe(0);
    // Every verdict is covered above, and report.json's schema names each verdict and each word.
    expect(new Set(cases.map(([v]) => v))).toEqual(new Set(VERDICT_ORDER));
    const props = (
      JSON.parse(readFileSync(join(packageRoot, 'schemas', 'report.schema.json'), 'utf8')) as {
        properties: Record<string, { enum: string[] }>;
      }
    ).properties;
    expect(new Set(props.verdict!.enum)).toEqual(new Set(Object.keys(VERDICT_WORD)));
    expect(new Set(props.verdict_word!.enum)).toEqual(new Set(Object.values(VERDICT_WORD)));
    // A setup stop says so in its coverage, never "not selected".
    expect(build([], { setupStop: 'x' }).coverage.text).toBe(
      '2 MUST checks not run or not run in full (2 the setup stopped the run)',
    );
    expect(renderHtml(build([], { setupStop: 'the server refused' }))).toContain(
      '<p id="no-findings">No check ran: the server refused</p>',
    );
  });

  test('diff names regressed, fixed, new and removed checks', () => {
    const before = reportOf([
      record('A-01', 'passed'),
      record('A-02', 'failed'),
      record('A-03', 'skipped'),
      record('A-04', 'passed'),
    ]);
    const after = reportOf([
      record('A-01', 'failed'),
      record('A-02', 'passed'),
      record('A-03', 'error'),
      record('A-05', 'failed'),
    ]);
    const d = diffReports(before, after);
    expect(d.regressed.map((e) => e.id)).toEqual(['A-01', 'A-03']);
    const was = reportOf([record('A-01', 'failed', { fingerprints: ['seat:21'] })]);
    const now = reportOf([record('A-01', 'failed', { fingerprints: ['dish:3'] })]);
    const inside = diffReports(was, now);
    expect(inside.stillFailing[0]).toMatchObject({ findings_added: ['dish:3'], findings_removed: ['seat:21'] });
    expect(inside.regressed.map((e) => e.id)).toEqual(['A-01']);
    expect(diffText(inside, 'a', 'b')).toMatch(/A-01 \[MUST\] still failed, with new findings: dish:3/);
    expect(d.fixed.map((e) => e.id)).toEqual(['A-02']);
    expect(d.added.map((e) => e.id)).toEqual(['A-05']);
    // A-04 passed before and is not in the new report: coverage lost, not a check the suite removed.
    expect(d.removed).toEqual([]);
    expect(d.lostCoverage.map((e) => [e.id, e.before, e.after])).toEqual([['A-04', 'passed', undefined]]);
    expect(diffText(d, 'a', 'b')).toMatch(/^Verdict: NOT CONFORMANT in both$/m);
  });

  test('diff counts coverage: a check that judged before and does not now is lost coverage; the verdicts are said', () => {
    const before = reportOf([
      record('A-01', 'passed'),
      record('A-02', 'failed'),
      record('A-03', 'passed', { level: 'SHOULD' }),
      record('A-04', 'passed', { level: 'INFO' }),
      record('A-05', 'skipped'),
      record('A-06', 'passed'),
    ]);
    const after = reportOf([
      record('A-01', 'skipped', { unmet: 'other_app', message: 'not configured: needs other_app' }),
      record('A-02', 'incomplete', { message: 'not finished: the deadline' }),
      record('A-03', 'skipped', { level: 'SHOULD' }),
      record('A-04', 'skipped', { level: 'INFO' }),
      record('A-05', 'skipped'),
    ]);
    const d = diffReports(before, after);
    expect(d.regressed).toEqual([]);
    // An INFO check observes, it judges nothing: it loses no coverage; a check skipped in both neither.
    expect(d.lostCoverage.map((e) => `${e.id} ${e.before} → ${e.after ?? 'absent'}`)).toEqual([
      'A-01 passed → skipped',
      'A-02 failed → incomplete',
      'A-03 passed → skipped',
      'A-06 passed → absent',
    ]);
    const text = diffText(d, 'old', 'new');
    expect(text).toMatch(/^Verdict: NOT CONFORMANT → INCOMPLETE$/m);
    expect(text).toMatch(
      /^Lost coverage \(judged before, not now\) \(4\):\n {2}A-01 \[MUST\] passed → skipped: not configured: needs other_app$/m,
    );
    expect(text).toMatch(/^ {2}A-06 \[MUST\] passed → absent: not in the new report$/m);
    expect(text.trimEnd().split('\n').at(-1)).toBe('0 regressed, 4 lost coverage, 0 fixed');
    // The other way round coverage is gained, none lost (a check unfinished before that fails now regressed).
    const back = diffReports(after, before);
    expect([back.regressed.map((e) => e.id), back.lostCoverage]).toEqual([['A-02'], []]);
    const gained = diffReports(reportOf([record('A-01', 'skipped')]), reportOf([record('A-01', 'passed')]));
    expect(diffText(gained, 'new', 'old')).toMatch(/nothing regressed, no coverage lost; 0 fixed\n$/);
  });
});

describe('large reports', () => {
  test('6,000 exchanges render to HTML and JUnit quickly, with exchanges per check capped', () => {
    const report = bigReport(300, 20);
    const t0 = performance.now();
    const page = renderHtml(report);
    const xml = renderJunit(report);
    const ms = performance.now() - t0;
    console.log(
      `rendered 300 checks / 6000 exchanges: html ${(page.length / 1e6).toFixed(1)} MB, junit ${(xml.length / 1e6).toFixed(1)} MB in ${ms.toFixed(0)} ms`,
    );
    expect(ms).toBeLessThan(5000);
    expect(xmllint(xml).ok).toBe(true);
  });
});

describe('evidence as the wire said it, and the top of the HTML report (issues 35 and 38)', () => {
  /** The text a browser shows of some HTML: tags dropped, entities decoded (enough for our escaper's five). */
  const textOf = (h: string): string =>
    h
      .replace(/<[^>]*>/g, '')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const wire = '{"status":"ERROR","code":401,"data":{"price":38.0,"stock":1E2,"name":"caf\\u00e9","n":-0.50}}';
  const failing = record('UNAUTH-DISH', 'failed', {
    message: 'GET /dishes/101 must refuse: answered data',
    evidence: [exchange({ url: 'https://api.example/open/dishes/101', status: 401, body: wire })],
    fingerprints: ['dish:101:/created_at', 'dish:102:/created_at', 'dish:103:/created_at', 'dish:107:/price'],
  });

  test('a body is shown with the bytes received, re-indented only: no number or string is rendered again', () => {
    const report = reportOf([failing]);
    const expected = [
      '{',
      '  "status": "ERROR",',
      '  "code": 401,',
      '  "data": {',
      '    "price": 38.0,',
      '    "stock": 1E2,',
      '    "name": "caf\\u00e9",',
      '    "n": -0.50',
      '  }',
      '}',
    ].join('\n');
    expect(textOf(renderHtml(report))).toContain(expected);
    const verbose = summaryText(report, [], { verbose: true })
      .split('\n')
      .map((l) => l.replace(/^ {6}/, ''))
      .join('\n');
    expect(verbose).toContain(expected);
    // Empty containers and strings holding JSON's punctuation stay as they came.
    const tricky = '{"a":[],"b":{},"c":"x, {y}: [z]","d":"\\"q\\""}';
    const t = reportOf([record('T-1', 'failed', { evidence: [exchange({ status: 500, body: tricky })] })]);
    expect(textOf(renderHtml(t))).toContain('{\n  "a": [],\n  "b": {},\n  "c": "x, {y}: [z]",\n  "d": "\\"q\\""\n}');
  });

  test('a type error says the value received', () => {
    const dishRecord = {
      id: 101,
      name: 'Mapo Tofu',
      price: 38.5,
      stock: 20,
      unit: 'plate',
      category_id: 1,
      user_id: 1,
      created_at: '2024-03-01 12:30',
      updated_at: '2024-03-02 18:05',
    };
    expect(validate('dish', dishRecord)).toEqual([]);
    const errors = validate('dish', { ...dishRecord, price: true, stock: '12.50' });
    expect(formatErrors(errors)).toMatch(/\/stock must be integer, got "12\.50"/);
    expect(formatErrors(errors)).toMatch(/\/price must be \S+, got true/);
  });

  test('one check is "1 check"; "Not run: 2 MUST checks" lists exactly those two', () => {
    const one = reportOf([record('A-01', 'passed')]);
    expect(summaryText(one, [])).toMatch(/\(1 check, /);
    expect(textOf(renderHtml(one))).toMatch(/· 1 check · 0 findings/);
    const catalogue = [
      { id: 'A-01', level: 'MUST' as const },
      { id: 'A-02', level: 'MUST' as const },
      { id: 'A-03', level: 'MUST' as const },
      { id: 'S-01', level: 'SHOULD' as const },
    ];
    const partial = reportFor(catalogue, [
      record('A-01', 'passed'),
      record('A-02', 'skipped', { unmet: 'other_app', message: 'not configured: needs other_app' }),
      record('S-01', 'skipped', { level: 'SHOULD', message: 'not configured: needs disabled_app.token' }),
    ]);
    const lines = summaryText(partial, []).split('\n');
    const at = lines.findIndex((l) => l.startsWith('Not run: '));
    expect(lines[at]).toBe('Not run: 2 MUST checks not run or not run in full (1 needs other_app, 1 not selected)');
    const listed = lines.slice(at + 1, lines.indexOf('', at));
    expect(listed).toEqual(['  A-02: not configured: needs other_app', '  not selected: A-03']);
  });

  test("the findings table shows each finding's message; the coverage line names what the reason counts", () => {
    const catalogue = [
      { id: 'UNAUTH-DISH', level: 'MUST' as const },
      { id: 'A-02', level: 'MUST' as const },
    ];
    const report = reportFor(catalogue, [failing]);
    const page = renderHtml(report);
    const table = textOf(
      page.slice(page.indexOf('<h2>Findings</h2>'), page.indexOf('</table>', page.indexOf('<h2>Findings</h2>'))),
    );
    expect(table).toContain(failing.title);
    expect(table).toContain(failing.message);
    // The reason says why the word; the line under it names the checks, in words of its own.
    const top = textOf(page.slice(page.indexOf('class="verdict'), page.indexOf('<h2>Findings</h2>')));
    const lines = top.split('\n').filter((l) => l.trim());
    expect(new Set(lines).size).toBe(lines.length);
    expect(top).toContain('MUST checks not judged: not selected: A-02.');
    expect(top.split(report.coverage.text).length - 1).toBeLessThanOrEqual(1);
  });

  test('the HTML names every item a finding found, as report.json does', () => {
    const page = textOf(renderHtml(reportOf([failing])));
    expect(page).toContain('4 items it found');
    for (const f of failing.fingerprints!) expect(page).toContain(f);
  });

  test('the HTML shows the rule matrix coverage per rule when report.json carries it (issue 35)', () => {
    const report = reportOf([failing]);
    const rules = [
      { rule: '§4 rule 4 token refused', applicable: 1200, probed: 1100 },
      { rule: '§2.2 dish fields', applicable: 400, probed: 400 },
    ];
    Object.assign(report.coverage, { cellsApplicable: 1600, cellsProbed: 1500, rules });
    const page = renderHtml(report);
    const text = textOf(page);
    expect(text).toContain(
      'Rule matrix: 1,500 of 1,600 applicable cells probed in this run (93.7 %); 1 rule not probed in full',
    );
    const rows = [
      ...page.matchAll(
        /<tr class="(part|full)"><td>([^<]*)<\/td><td class="n">([\d,]+)<\/td><td class="n">([\d,]+)<\/td>/g,
      ),
    ].map((m) => [m[1], m[2], m[3], m[4]]);
    expect(rows).toEqual([
      ['part', '§4 rule 4 token refused', '1,100', '1,200'],
      ['full', '§2.2 dish fields', '400', '400'],
    ]);
    // Absent (a report of a run that counted no cells): no such section.
    expect(renderHtml(reportOf([failing]))).not.toContain('cell-coverage');
  });
});
