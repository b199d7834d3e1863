import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { appKeys, targetArgs, targetEnv, withServer } from './helpers/target.js';
import { MUTANTS } from '../reference/mutants/index.js';
import { tokenCommand } from '../reporters/evidence.js';

/** The text of an element of report.html, its entities decoded (what a reader copies from the page). */
function preText(page: string, pattern: RegExp): string[] {
  const decode = (s: string): string =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  return [...page.matchAll(pattern)].map((m) => decode(m[1]!));
}

/** Runs shell lines as a reader would paste them, with only the key pairs in the environment. */
function shell(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('a curl line of an isolation finding reproduces when run: each token is named for its application and the report says how to get it', async () => {
  const mutant = MUTANTS.find((m) => m.name === 'iso-orders-list-leak-b')!;
  await withServer(
    [mutant],
    async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code).toBe(1);
      const iso = run.report!.checks.find((c) => c.id === 'ISO-04')!;
      expect(iso.outcome).toBe('failed');
      // Merchant B's /orders, as the finding saw it: fetched with merchant B's token, named so.
      const seen = iso.evidence.find(
        (e) => e.request.url.endsWith('/orders') && tokenOfRequest(e.request.headers) === '[REDACTED:other-token]',
      );
      expect(seen, "an exchange of /orders with other_app's token").toBeDefined();

      const page = readFileSync(join(run.dir, 'conformance-report', 'report.html'), 'utf8');
      const [steps] = preText(page, /<pre class="curl" id="reproduce">([\s\S]*?)<\/pre>/g);
      expect(steps).toMatch(/export OTHER_OPEN_TOKEN=.*\$CONFORMANCE_OTHER_SECRET.*\$CONFORMANCE_OTHER_KEY/);
      const line = preText(page, /<pre class="curl">(curl [^<]*?)<\/pre>/g).find(
        (l) => l.includes('"$OTHER_OPEN_TOKEN"') && /\/orders'$/.test(l),
      );
      expect(line, 'a curl line with $OTHER_OPEN_TOKEN for /orders').toBeDefined();

      // Run the printed lines as they are, with the application key pairs a vendor exports.
      const keys = Object.fromEntries(
        Object.entries(targetEnv).filter(([k]) => /^CONFORMANCE_(OTHER_)?(SECRET|KEY)$/.test(k)),
      );
      const r = await shell(`${steps}\n${line}`, keys);
      expect(r.code, r.err).toBe(0);
      const body = r.out.slice(r.out.indexOf('\r\n\r\n') + 4);
      expect(r.out).toMatch(/^HTTP\/1\.1 200/);
      // The same answer the finding shows: merchant B's list with merchant A's orders in it, not merchant A's own list.
      expect(body.slice(0, 300)).toBe(seen!.response!.body_excerpt.slice(0, 300));
    },
    { https: true },
  );
});

/**
 * app's keys with the characters a form body or a query encodes (`+`, `/`, `=`, `&`, `%`, `#`, a space), as base64
 * keys carry some, and those a JSON string escapes (`"`, `\`).
 */
const FORM_KEYS = { secret: 'pk_a+b/c=d&e%f g"h\\i#j', key: 'sk_1+2/3==' };
const formKeys = appKeys('form-escaped-keys', FORM_KEYS);

test("a curl line of a GET with a body reproduces when run: AUTH-06's keys in a JSON and a form body get the token again", async () => {
  const mutant = MUTANTS.find((m) => m.name === 'auth-keys-from-body')!;
  await withServer(
    [formKeys.variant, mutant],
    async (srv) => {
      const run = await runCli(targetArgs(srv), { env: formKeys.env });
      expect(run.code).toBe(1);
      expect(run.report!.checks.find((c) => c.id === 'AUTH-06')!.outcome).toBe('failed');
      const page = readFileSync(join(run.dir, 'conformance-report', 'report.html'), 'utf8');
      // app's key pair in each kind of body, as the page prints it: a GET, its Content-Type, the keys as variables.
      const lines = preText(page, /<pre class="curl">(curl [^<]*?)<\/pre>/g).filter(
        (l) => / -X 'GET' .* --data-(raw|urlencode) /.test(l) && l.includes('"$CONFORMANCE_SECRET"'),
      );
      expect(lines.map((l) => /content-type: ([^']*)/.exec(l)![1]).sort()).toEqual([
        'application/json; charset=utf-8',
        'application/x-www-form-urlencoded',
      ]);
      const keys = { CONFORMANCE_SECRET: FORM_KEYS.secret, CONFORMANCE_KEY: FORM_KEYS.key };
      for (const line of lines) {
        expect(line).toMatch(/ -X 'GET' /);
        const r = await shell(line, keys);
        expect(r.code, r.err).toBe(0);
        // The finding again: the server issued a token for keys it took from the body.
        expect(r.out).toMatch(/^HTTP\/1\.1 200/);
        expect(r.out).toContain('"app_token":"tok_');
      }
      // The report's own way to get $OPEN_TOKEN, with these keys in the query: a token.
      const token = await shell(
        `${tokenCommand(srv.baseUrl, { caFile: srv.caFile! })}\nprintf '%s' "$OPEN_TOKEN"`,
        keys,
      );
      expect(token.code, token.err).toBe(0);
      expect(token.out).toMatch(/^tok_/);
    },
    { https: true },
  );
});
