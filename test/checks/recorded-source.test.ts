import { expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

test('a request the recording lacks skips the check, naming the request; it neither passes nor fails', async () => {
  for (const [id, kind, drop] of [['AUTH-05', 'pass', /^GET \/seats\/\d+$/], ['DISH-02', 'fail', /^GET \/dishes\/101$/]] as const) {
    const rec = recordingsOf(id)[kind]!;
    const dropped = rec.exchanges.find((x) => drop.test(`${x.request.method} ${new URL(x.request.url).pathname.replace('/open', '')}`))!;
    const r = await replay(check(id), rec.config, rec.exchanges.filter((x) => x !== dropped));
    expect(r.status, `${id} (${kind}) without ${dropped.request.url}`).toBe('skipped');
    expect(r.message).toMatch(new RegExp(`^not in the recording: ${drop.source.slice(1, -1)}`));
  }
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
  for (const x of rec.exchanges) {
    const token = (JSON.parse(x.response?.body ?? '{}') as { data?: { app_token?: string } }).data?.app_token;
    if (token) expect(text).not.toContain(token);
  }
  expect(text).toContain('[REDACTED:');
});
