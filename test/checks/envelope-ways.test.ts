/**
 * The success envelope's checks (suites/envelope.ts), each way they judge: /auth's answer of every application, a
 * success without data, a capture that holds only the tokens, and msg on a refusal (which ENV-02 leaves alone).
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { runChecks } from '../../core/engine/engine.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const rec = (id: string) => recordingsOf(id).pass!;
/** The /auth request of the application configured with this key pair. */
const authOf = (key: string) => (x: RecordedExchange) =>
  requestOf(x).line.startsWith('GET /auth?') && new URL(x.request.url).searchParams.get('key') === key;
const lead = 'expected {status: "SUCCESS", code: 200, data} on every success: ';

describe("ENV-01: /auth's answer is a success envelope too, for each application", () => {
  for (const [who, shown] of [
    ['app', 'GET /auth'],
    ['other_app', "GET /auth with other_app's key pair"],
  ] as const)
    test(who, async () => {
      const { config, exchanges } = rec('ENV-01');
      const r = await replay(
        check('ENV-01'),
        config,
        withAnswers(exchanges, authOf(config[who]!.key), (j) => ({ ...(j as object), msg: null })),
      );
      expect(r.status).toBe('failed');
      expect(r.message).toBe(`${lead}${shown}: HTTP 200, code 200, status "SUCCESS": /msg must be string, got null`);
    });
});

test('ENV-01: a success with no data member fails, said so', async () => {
  const { config, exchanges } = rec('ENV-01');
  const token = issuedToken(exchanges, config.app.key);
  const r = await replay(
    check('ENV-01'),
    config,
    withAnswers(
      exchanges,
      (x) => requestOf(x).line === 'GET /merchant' && requestOf(x).token === token,
      () => ({ status: 'SUCCESS', code: 200 }),
    ),
  );
  expect(r.status).toBe('failed');
  expect(r.message).toBe(`${lead}GET /merchant: no data member`);
});

test('ENV-01 and ENV-02 over a capture that holds the tokens but no /auth: the other answers judged, a part said', async () => {
  const { config, exchanges } = rec('ENV-01');
  const tokens = {
    app: issuedToken(exchanges, config.app.key),
    other_app: issuedToken(exchanges, config.other_app!.key),
  };
  const without = exchanges.filter((x) => !requestOf(x).line.startsWith('GET /auth'));
  const { records } = await runChecks(
    config,
    [check('ENV-01'), check('ENV-02')],
    (r) => new RecordedSource(without, config.base_url, r, { tokens }),
  );
  const part = (who: string) => `the recorded answers without GET /auth of ${who} (only its token is in the recording)`;
  for (const r of records) {
    expect(r.status, r.id).toBe('passed');
    expect(r.sampled?.split('; ').sort(), r.id).toEqual([part('app'), part('other_app')]);
  }
  expect(records.map((r) => r.id)).toEqual(['ENV-01', 'ENV-02']);
});

test('ENV-02: msg on a refusal is no success with msg', async () => {
  const { config, exchanges } = rec('ENV-02');
  const token = issuedToken(exchanges, config.other_app!.key);
  const refused = withAnswers(
    exchanges,
    (x) => requestOf(x).line === 'GET /orders' && requestOf(x).token === token,
    () => ({ status: 'ERROR', code: 401, msg: 'token expired' }),
    401,
  );
  expect((await replay(check('ENV-02'), config, refused)).status).toBe('passed');
  // The same msg on a success fails: the refusal passed for being one, not for its msg.
  const success = withAnswers(
    exchanges,
    (x) => requestOf(x).line === 'GET /orders' && requestOf(x).token === token,
    (j) => ({ ...(j as object), msg: 'token expired' }),
  );
  const r = await replay(check('ENV-02'), config, success);
  expect(r.status).toBe('failed');
  expect(r.message).toBe(
    `§2.1 says msg is absent on success; it is present on GET /orders with other_app's token (msg "token expired")`,
  );
});
