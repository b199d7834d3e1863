import { expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { failsOf, recordingsOf, replay } from './replay.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

test('a request the recording lacks skips the check, naming the request; it neither passes nor fails', async () => {
  for (const [id, kind, drop] of [
    ['AUTH-05', 'pass', /^GET \/orders$/],
    ['ENV-02', 'pass', /^GET \/merchant$/],
  ] as const) {
    const rec = recordingsOf(id)[kind]!;
    const dropped = rec.exchanges.find((x) =>
      drop.test(`${x.request.method} ${new URL(x.request.url).pathname.replace('/open', '')}`),
    )!;
    const r = await replay(
      check(id),
      rec.config,
      rec.exchanges.filter((x) => x !== dropped),
    );
    expect(r.status, `${id} (${kind}) without ${dropped.request.url}`).toBe('skipped');
    expect(r.message).toMatch(new RegExp(`^not in the recording: ${drop.source.slice(1, -1)}`));
  }
});

test('details are judged among those recorded: a finding there stands, and the result says what it left out', async () => {
  const rec = recordingsOf('DISH-02').fail!;
  const without101 = rec.exchanges.filter((x) => !new URL(x.request.url).pathname.endsWith('/dishes/101'));
  const r = await replay(check('DISH-02'), rec.config, without101);
  expect(r.status).toBe('failed');
  expect(r.fingerprints).toEqual(rec.fingerprints!.filter((f) => !f.includes('101')));
  expect(r.sampled).toMatch(/^\d+ of \d+ dishes \(the details in the recording\)$/);
  const pass = recordingsOf('DISH-02').pass!;
  const p = await replay(
    check('DISH-02'),
    pass.config,
    pass.exchanges.filter((x) => !new URL(x.request.url).pathname.endsWith('/dishes/101')),
  );
  expect(p.status).toBe('passed');
  expect(p.sampled).toMatch(/the details in the recording/);
});

test('an empty recording skips every check that needs an exchange, and fails none', async () => {
  const { config } = recordingsOf('AUTH-01').pass!;
  for (const c of ALL_CHECKS) {
    const r = await replay(c, config, []);
    expect(['skipped'], `${c.id}: ${r.message}`).toContain(r.status);
  }
});

test('secrets in the recorded answers are redacted in the result exactly as live', async () => {
  const rec = recordingsOf('SEC-01').fail!;
  const r = await replay(check('SEC-01'), rec.config, rec.exchanges);
  const text = JSON.stringify(r);
  expect(r.status).toBe('failed');
  expect(text).not.toContain(rec.config.app.key);
  const tokens = rec.exchanges.flatMap(
    (x) => (JSON.parse(x.response?.body ?? '{}') as { data?: { app_token?: string } }).data?.app_token ?? [],
  );
  // The recording holds issued tokens, so the loop below has something to look for.
  expect(tokens.length).toBeGreaterThan(0);
  for (const token of tokens) expect(text).not.toContain(token);
  expect(text).toContain('[REDACTED:');
});

test('a recorded request with a body answers only a request with the same body (AUTH-06: the keys in a GET body)', async () => {
  const rec = failsOf(recordingsOf('AUTH-06')).find((f) => f.variant === 'auth-keys-from-body')!;
  const bodied = rec.exchanges.filter((x) => x.request.body !== undefined);
  // app's key pair as JSON and as a form: the recording holds the bodies the check sends.
  expect(bodied.map((x) => x.request.headers['content-type'])).toContain('application/x-www-form-urlencoded');
  expect(bodied.length).toBeGreaterThanOrEqual(2);
  const r = await replay(check('AUTH-06'), rec.config, rec.exchanges);
  expect(r.status).toBe('failed');
  expect(r.message).toContain('in a JSON request body');
  // Another body, or none, is another request: the check is skipped naming it, never answered with those answers.
  for (const change of [(b: string) => `${b} `, () => undefined]) {
    const changed = rec.exchanges.map((x) => {
      if (x.request.body === undefined) return x;
      const { body, ...request } = x.request;
      const other = change(body);
      return { ...x, request: other === undefined ? request : { ...request, body: other } };
    });
    const c = await replay(check('AUTH-06'), rec.config, changed);
    expect(c.status).toBe('skipped');
    expect(c.message).toMatch(/^not in the recording: GET \/auth/);
  }
});
