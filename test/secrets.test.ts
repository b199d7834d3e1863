import { expect, test } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { appKeys, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { echoSecrets, refreshedTokens } from '../reference/hostile.js';
import { MUTANTS } from '../reference/mutants/index.js';

/**
 * Key pairs with every character that changes between raw, URL-encoded, form-encoded, JSON- and HTML-escaped
 * forms, so a redaction that only knows the raw string is caught. (Header-safe ASCII: the suite sends the secret
 * key as a bad open-token in the refusal checks.)
 */
const SPECIAL = {
  secret: `pk_Zürich+/=&~!'()* "7Qx2"`,
  key: `sk_<b>&amp;+%20/?#[]~!'()*;x y\\z`,
};

/** The application's keys become the special ones; the server still knows them as the fixture's first app. */
const { variant: specialKeys, env: specialEnv } = appKeys('special-keys', SPECIAL);

const html = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const forms = (s: string): string[] => [
  ...new Set([
    s,
    encodeURIComponent(s),
    encodeURIComponent(s).replace(/%20/g, '+'),
    new URLSearchParams({ v: s }).toString().slice(2),
    JSON.stringify(s).slice(1, -1),
    html(s),
    JSON.stringify(html(s)).slice(1, -1),
    s.toLowerCase(),
  ]),
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('no secret, and no token the server issued, occurs in any byte the CLI wrote — even from a server that echoes them', async () => {
  // A server that takes the keys from a GET body too: AUTH-06 fails, and its evidence holds the request bodies that
  // carried every application's keys (JSON- and form-encoded), in every report and in the HAR.
  const fromBody = MUTANTS.find((m) => m.name === 'auth-keys-from-body')!;
  await withServer([specialKeys, echoSecrets, fromBody], async (srv) => {
    const run = await runCli([...targetArgs(srv), '--record-har', 'run.har'], { env: specialEnv });
    // The run happened: tokens were issued and the echoing server made checks fail with its messages.
    expect(run.report, run.stderr).toBeDefined();
    expect(run.report!.checks.find((c) => c.id === 'AUTH-01')?.status).toBe('passed');
    expect(run.code).toBe(1);

    const issued = [...srv.world.tokens.keys()];
    expect(
      issued.filter(
        (t) => t.startsWith('tok_') && !Object.values(CREDENTIALS).some((c) => 'token' in c && c.token === t),
      ).length,
    ).toBeGreaterThan(0);
    const secrets = [
      SPECIAL.secret,
      SPECIAL.key,
      CREDENTIALS.other_app.secret,
      CREDENTIALS.other_app.key,
      CREDENTIALS.disabled_app.secret,
      CREDENTIALS.disabled_app.key,
      ...issued,
    ];

    const outputs: Array<[string, string]> = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
    ];
    for (const f of filesUnder(join(run.dir, 'conformance-report'))) outputs.push([f, readFileSync(f, 'utf8')]);
    outputs.push(['run.har', readFileSync(join(run.dir, 'run.har'), 'utf8')]);
    expect(outputs.length).toBeGreaterThan(2);
    const leaks: string[] = [];
    for (const [where, text] of outputs) {
      for (const s of secrets) {
        for (const form of forms(s))
          if (text.includes(form)) leaks.push(`${where} contains ${JSON.stringify(form.slice(0, 6))}…`);
        // A message that quotes a server value cut short ("…") must not leave a readable prefix of a token either.
        // Case-insensitively: header names arrive lowercased, so a token echoed in one comes back in lower case.
        const at = s.startsWith('tok_') ? text.toLowerCase().indexOf(s.slice(0, 10).toLowerCase()) : -1;
        if (at >= 0)
          leaks.push(`${where} contains a prefix of an issued token after: …${text.slice(Math.max(0, at - 80), at)}`);
      }
    }
    expect(leaks).toEqual([]);
    // The echo reached the report, redacted: the evidence shows the header and msg with their secrets replaced.
    const all = outputs.map(([, t]) => t).join('\n');
    expect(all).toContain('x-echo-token');
    expect(all).toMatch(/\[REDACTED:token\]/);
    // The request bodies were sent and shown, their keys replaced: in the evidence, the curl lines and the HAR.
    expect(run.report!.checks.find((c) => c.id === 'AUTH-06')?.status).toBe('failed');
    const bodies = run.report!.checks.flatMap((c) => c.evidence.flatMap((e) => e.request.body ?? []));
    expect(bodies).toContain('{"secret":"[REDACTED:public-key]","key":"[REDACTED:secret-key]"}');
    expect(bodies).toContain('secret=[REDACTED:public-key]&key=[REDACTED:secret-key]');
    // Each key JSON-escaped by the shell where it stands in a JSON string (reporters/evidence.ts shellWord).
    const escaped = (v: string): string => `"$(printf '%s' "$${v}" | sed 's/[\\\\"]/\\\\&/g')"`;
    // As junit.xml holds it (its & escaped).
    expect(all).toContain(
      `--data-raw '{"secret":"'${escaped('CONFORMANCE_SECRET')}'","key":"'${escaped('CONFORMANCE_KEY')}'"}'`.replace(
        /&/g,
        '&amp;',
      ),
    );
    const page = outputs.find(([w]) => w.endsWith('report.html'))![1];
    expect(page).toContain(
      '<pre class="request-body">secret=[REDACTED:public-key]&amp;key=[REDACTED:secret-key]</pre>',
    );
    expect(outputs.find(([w]) => w.endsWith('junit.xml'))![1]).toContain(
      '&gt; {"secret":"[REDACTED:public-key]","key":"[REDACTED:secret-key]"}',
    );
    expect(outputs.find(([w]) => w === 'run.har')![1]).toContain(
      '"text":"secret=REDACTED_public-key&key=REDACTED_secret-key"',
    );
  });
});

test('a token the server hands out in a header or a cookie is learned: no output and no HAR holds it', async () => {
  await withServer([refreshedTokens], async (srv) => {
    const run = await runCli(targetArgs(srv, ['--record-har', 'run.har']), { env: targetEnv });
    expect(run.report, run.stderr).toBeDefined();
    const issued = [...srv.world.tokens.keys()].filter((t) => t.startsWith('tok_'));
    // Most tokens were handed out only in headers: more than the /auth calls of a run.
    expect(issued.length).toBeGreaterThan(50);
    const outputs: Array<[string, string]> = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
      ...filesUnder(run.dir).map((f): [string, string] => [f, readFileSync(f, 'utf8')]),
    ];
    expect(outputs.some(([f]) => f.endsWith('.har'))).toBe(true);
    const leaks = outputs.flatMap(([where, text]) =>
      issued.flatMap((t) =>
        forms(t)
          .filter((form) => text.includes(form))
          .map(() => `${where} holds ${t.slice(0, 6)}…`),
      ),
    );
    expect(leaks).toEqual([]);
    // The headers reached the evidence, their values replaced.
    const all = outputs.map(([, t]) => t).join('\n');
    expect(all).toMatch(/x-refreshed-token/);
    expect(all).toMatch(/session_token=\[REDACTED:issued-token\]|session_token=REDACTED_issued-token/);
  });
});
