/**
 * The transport checks (suites/transport.ts), each way they judge an answer: the Content-Type header's every part,
 * bytes that are not UTF-8 wherever they sit, the plain HTTP origin's answers with and without the token, and the
 * INFO profile's phrases; each from a recorded pass with only the part under test changed.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { contentTypeProblem } from '../../suites/transport.js';
import { runChecks } from '../../core/engine/engine.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const line = (l: string) => (x: RecordedExchange) => requestOf(x).line === l;
/** A recorded exchange as it came, with another answer: the request as recorded, the response as given. */
const answering = (x: RecordedExchange, response: RecordedExchange['response']): RecordedExchange => ({
  request: x.request,
  ...(response ? { response } : { error: 'socket hang up' }),
});
const json = (status: number, body: unknown): NonNullable<RecordedExchange['response']> => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('TRANS-01: what a Content-Type header may and may not be', () => {
  test.each([
    ['application/json ; charset=utf-8', undefined],
    ['application/vnd.api+json', undefined],
    ['application/json; charset', 'Content-Type "application/json; charset" names charset "", not UTF-8'],
    [
      'application/json; charset = iso-8859-1',
      'Content-Type "application/json; charset = iso-8859-1" names charset "iso-8859-1", not UTF-8',
    ],
    [
      'application/json; charset=utf-8""',
      'Content-Type "application/json; charset=utf-8\\"\\"" names charset "utf-8\\"\\"", not UTF-8',
    ],
    [
      'application/json; charset="utf"-8',
      'Content-Type "application/json; charset=\\"utf\\"-8" names charset "\\"utf\\"-8", not UTF-8',
    ],
    ['text/application/x+json', 'Content-Type "text/application/x+json" is not a JSON media type'],
    ['application/x+jsonp', 'Content-Type "application/x+jsonp" is not a JSON media type'],
    ['', 'no Content-Type header'],
    ['  ', 'no Content-Type header'],
  ])('%j: %s', (value, problem) => {
    expect(contentTypeProblem(value)).toBe(problem);
  });

  test('every answer with a wrong type is listed, one after the other', async () => {
    const rec = recordingsOf('TRANS-01').pass!;
    // app's answers only (other_app's are judged too, and would be listed after them).
    const mine = issuedToken(rec.exchanges, rec.config.app.key);
    const exchanges = rec.exchanges.map((x) =>
      ['GET /merchant', 'GET /orders'].includes(requestOf(x).line) && requestOf(x).token === mine && x.response
        ? { ...x, response: { ...x.response, headers: { ...x.response.headers, 'content-type': 'text/plain' } } }
        : x,
    );
    const r = await replay(check('TRANS-01'), rec.config, exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      'expected Content-Type application/json (charset utf-8 or none), got GET /merchant: Content-Type "text/plain" is not a JSON media type; GET /orders: Content-Type "text/plain" is not a JSON media type',
    );
    expect(r.fingerprints).toEqual(['GET /merchant', 'GET /orders']);
  });

  test('a token that ends mid-run with /auth refusing a new one leaves the unknown interface unjudged, the rest judged', async () => {
    const rec = recordingsOf('TRANS-01').pass!;
    const at = (l: string) => rec.exchanges.find(line(l))!;
    const refused = json(401, { status: 'ERROR', code: 401, msg: 'token expired' });
    // /orders refuses the token that worked, GET /merchant (asked again) refuses it too, and /auth issues no other.
    const exchanges = [
      ...rec.exchanges.map((x) => (line('GET /orders')(x) ? answering(x, refused) : x)),
      answering(at('GET /merchant'), refused),
      answering(
        rec.exchanges.find((x) => requestOf(x).line.startsWith('GET /auth?'))!,
        refused,
      ),
    ];
    const r = await replay(check('TRANS-01'), rec.config, exchanges);
    expect(r.status, r.message).toBe('passed');
    expect(r.evidence.map((e) => new URL(e.request.url).pathname)).not.toContain('/open/conformance-unknown-interface');
  });

  test('an answer that never came leaves the check incomplete, not passed', async () => {
    const rec = recordingsOf('TRANS-01').pass!;
    const exchanges = rec.exchanges.map((x) =>
      line('GET /conformance-unknown-interface')(x) ? answering(x, undefined) : x,
    );
    const r = await replay(check('TRANS-01'), rec.config, exchanges);
    expect(r.status).toBe('incomplete');
    expect(r.message).toMatch(/^could not finish: GET \S+\/conformance-unknown-interface: socket hang up$/);
  });

  test('a capture that holds only the token, not its /auth, is judged on the other answers', async () => {
    const rec = recordingsOf('TRANS-01').pass!;
    const tokens = {
      app: issuedToken(rec.exchanges, rec.config.app.key),
      other_app: issuedToken(rec.exchanges, rec.config.other_app!.key),
    };
    const exchanges = rec.exchanges.filter((x) => !requestOf(x).line.startsWith('GET /auth'));
    const { records } = await runChecks(
      rec.config,
      [check('TRANS-01')],
      (r) => new RecordedSource(exchanges, rec.config.base_url, r, { tokens }),
    );
    expect(records[0]!.status, records[0]!.message).toBe('passed');
    expect(records[0]!.sampled).toBe(
      (['app', 'other_app'] as const)
        .map((who) => `the recorded answers without GET /auth of ${who} (only its token is in the recording)`)
        .join('; '),
    );
  });
});

describe('TRANS-02: where the bytes that are not UTF-8 sit', () => {
  const rec = () => recordingsOf('TRANS-02').pass!;
  /** The pass recording with one answer to app's token replaced by these bytes. */
  const withBytes = (l: string, bytes: Buffer) =>
    rec().exchanges.map((x) =>
      line(l)(x) && requestOf(x).token === issuedToken(rec().exchanges, rec().config.app.key) && x.response
        ? { ...x, response: { ...x.response, body: bytes.toString('base64'), encoding: 'base64' as const } }
        : x,
    );
  const lead = 'expected UTF-8 bodies (§1), got ';
  const tail = ' (U+FFFD marks the bytes that are not UTF-8)';

  /** A body of text around one byte that is not UTF-8. */
  const around = (before: string, byte: number, after: string) =>
    Buffer.concat([Buffer.from(before), Buffer.from([byte]), Buffer.from(after)]);

  test.each([
    [
      'in a body that is not JSON: the bytes around the first one',
      'GET /merchant',
      around('<html>an error page, ', 0xff, ' byte, then more text to cut'),
      'near "html>an error page, \uFFFD byte, then more te"',
    ],
    [
      'at the very start of the body',
      'GET /seats',
      around('', 0xc3, 'oops: this body is not JSON at all'),
      'near "\uFFFDoops: this body is "',
    ],
    [
      'in a member name of JSON: no value holds it, so the bytes around it',
      'GET /merchant',
      around('{"status":"SUCCESS","code":200,"data":{"na', 0xe9, 'me":"x"}}'),
      'near "ode\\":200,\\"data\\":{\\"na\uFFFDme\\":\\"x\\"}}"',
    ],
  ])('%s', async (_, request, body, where) => {
    const r = await replay(check('TRANS-02'), rec().config, withBytes(request, body));
    expect(r.status).toBe('failed');
    expect(r.message).toBe(`${lead}${request}: invalid UTF-8 ${where}${tail}`);
    expect(r.fingerprints).toEqual([request]);
  });
});

describe('TRANS-03: the plain HTTP origin with the token', () => {
  const rec = () => recordingsOf('TRANS-03').fail!;
  /**
   * A request over plain HTTP with a credential: each application's token at a data endpoint, its key pair at /auth
   * (the failing recording's plain origin serves data to every one of them, and nothing without a credential).
   */
  const plainWithCredential = (x: RecordedExchange) =>
    new URL(x.request.url).protocol === 'http:' &&
    (requestOf(x).token !== undefined || new URL(x.request.url).searchParams.has('key'));
  const ENVELOPES = '/auth, /merchant, /dishes, /dishes/101, /seats, /seats/11, /orders';

  /**
   * A token refused with 401 makes the run ask GET /merchant over HTTPS whether it still works (core/session/api.ts):
   * the answer it would get, each application's merchant as the plain origin served it, recorded at the HTTPS origin.
   */
  const stillWorks = (): RecordedExchange[] =>
    rec()
      .exchanges.filter((x) => plainWithCredential(x) && requestOf(x).line === 'GET /merchant')
      .map((x) => ({ ...x, request: { ...x.request, url: x.request.url.replace(/^http:/, 'https:') } }));

  test('an API that refuses the credentials over plain HTTP passes, and says where it answered API envelopes', async () => {
    const refusal = json(401, { status: 'ERROR', code: 401, msg: 'use https' });
    // Both applications' tokens at the 6 data endpoints and key pairs at /auth: 14 requests.
    expect(rec().exchanges.filter(plainWithCredential)).toHaveLength(14);
    expect(stillWorks()).toHaveLength(2);
    const refusing = (spare: (x: RecordedExchange) => boolean) => [
      ...rec().exchanges.map((x) => (plainWithCredential(x) && !spare(x) ? answering(x, refusal) : x)),
      ...stillWorks(),
    ];
    const r = await replay(
      check('TRANS-03'),
      rec().config,
      refusing(() => false),
    );
    expect(r.status, r.message).toBe('passed');
    expect(r.notes).toEqual([
      `the plain HTTP origin answers API envelopes at ${ENVELOPES} but served no data with the credentials`,
    ]);
    // other_app's credentials still served data there: a finding at each of its 7 endpoints, named with other_app.
    const other = rec().config.other_app!;
    // other_app's token: the one its own detail (dish 201) was asked with.
    const otherToken = requestOf(rec().exchanges.find(line('GET /dishes/201'))!).token;
    expect(otherToken).toBeDefined();
    const served = await replay(
      check('TRANS-03'),
      rec().config,
      refusing(
        (x) => requestOf(x).token === otherToken || new URL(x.request.url).searchParams.get('key') === other.key,
      ),
    );
    expect(served.status).toBe('failed');
    expect(served.fingerprints).toEqual([
      'other_app:/auth:credential',
      'other_app:/dishes/:id:credential',
      'other_app:/dishes:credential',
      'other_app:/merchant:credential',
      'other_app:/orders:credential',
      'other_app:/seats/:id:credential',
      'other_app:/seats:credential',
    ]);
  });

  test('one that gives no answer with the credentials passes, and says why', async () => {
    const exchanges = rec().exchanges.map((x) => (plainWithCredential(x) ? answering(x, undefined) : x));
    const r = await replay(check('TRANS-03'), rec().config, exchanges);
    expect(r.status, r.message).toBe('passed');
    expect(r.notes).toHaveLength(1);
    // The credentials got no answer: the note says so, and why, not only that no data was served.
    expect(r.notes[0]).toMatch(
      /^the plain HTTP origin answers API envelopes at .* but .*GET http:\/\/127\.0\.0\.1:\d+\/open\/merchant: socket hang up/,
    );
  });

  test('a base_url at the root of its origin: the plain origin is asked at its root too', async () => {
    const pass = recordingsOf('TRANS-03').pass!;
    const base = new URL(pass.config.base_url).origin;
    const exchanges = pass.exchanges.map((x) => ({
      ...x,
      request: { ...x.request, url: x.request.url.replace('/open/', '/') },
    }));
    const r = await replay(check('TRANS-03'), { ...pass.config, base_url: base }, exchanges);
    expect(r.status, r.message).toBe('passed');
    // Every endpoint at the origin's root, /auth first: none of them under /open.
    expect(r.observation).toMatch(
      /^plain HTTP refused: GET http:\/\/127\.0\.0\.1:\d+\/auth: .*; refused: GET http:\/\/127\.0\.0\.1:\d+\/merchant: /,
    );
    expect(r.observation).not.toContain('/open');
  });
});

describe('INFO-TRANS-NO-CONTENT-TYPE: what each request without Content-Type got', () => {
  const rec = () => recordingsOf('INFO-TRANS-NO-CONTENT-TYPE').pass!;
  const typed = (x: RecordedExchange) => x.request.headers['content-type'] !== undefined;

  test('a server that refuses requests without it, and one that does not answer them', async () => {
    const refused = json(415, { status: 'ERROR', code: 415, msg: 'Content-Type required' });
    const exchanges = rec().exchanges.map((x) => {
      if (typed(x)) return x;
      return requestOf(x).line === 'GET /merchant' ? answering(x, refused) : answering(x, undefined);
    });
    // A request with Content-Type is answered as usual: only one without it may be given the refusal.
    const merchant = rec().exchanges.find(line('GET /merchant'))!;
    exchanges.push({
      ...merchant,
      request: { ...merchant.request, headers: { ...merchant.request.headers, 'content-type': 'application/json' } },
    });
    const r = await replay(check('INFO-TRANS-NO-CONTENT-TYPE'), rec().config, exchanges);
    expect(r.status).toBe('passed');
    expect(r.observation).toMatch(
      /^GET \/auth: no response \(GET https:\/\/127\.0\.0\.1:\d+\/open\/auth\?secret=\[REDACTED:public-key\]&key=\[REDACTED:secret-key\]: socket hang up\); GET \/merchant: refused \(code 415 over HTTP 415, status "ERROR"\) — without Content-Type$/,
    );
  });
});

describe('INFO-TRANS-TIMING: an endpoint that answers an error says which', () => {
  test('its code and status beside its time', async () => {
    const rec = recordingsOf('INFO-TRANS-TIMING').pass!;
    const r = await replay(
      check('INFO-TRANS-TIMING'),
      rec.config,
      withAnswers(rec.exchanges, line('GET /orders'), () => ({ status: 'ERROR', code: 500 }), 500),
    );
    expect(r.observation).toMatch(/; GET \/orders \d+ ms \(29 bytes, code 500 over HTTP 500, status "ERROR"\) — /);
    expect(r.observation).toMatch(/GET \/merchant \d+ ms \(\d+ bytes\);/);
  });
});
