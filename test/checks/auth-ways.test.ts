/**
 * The ways the checks of /auth and of the token (suites/auth.ts) fail or hold back that no mutant's recording shows:
 * each a recorded pass with one answer, the token or the configuration changed (as ways.test.ts does), so that each
 * branch of a check is proven by a verdict and the words it says.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { ALL_CHECKS } from '../../suites/index.js';
import { runChecks } from '../../core/engine/engine.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import { placeholderOf, SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import type { Config } from '../../core/config/config.js';
import { recordingsOf, replay } from './replay.js';
import { carrying, issuedToken, requestOf, withAnswers } from './altered.js';
import { TOKEN_HEADER, tokenOfRequest } from '../../core/spec/auth-scheme.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const pass = (id: string) => recordingsOf(id).pass!;
type Chosen = (x: RecordedExchange) => boolean;

const changed = (id: string, chosen: Chosen, change: (json: unknown) => unknown, status?: number) =>
  replay(check(id), pass(id).config, withAnswers(pass(id).exchanges, chosen, change, status));

/** A request chosen by its line ("GET /dishes?token=…") and the token it carried. */
const asked =
  (line: string, token: (t: string | undefined) => boolean = () => true): Chosen =>
  (x) =>
    requestOf(x).line === line && token(requestOf(x).token);
const startsWith =
  (line: string): Chosen =>
  (x) =>
    requestOf(x).line.startsWith(line);
/** The nth recorded request chosen (1: the first). */
const nth = (chosen: Chosen, n: number): Chosen => {
  let seen = 0;
  return (x) => chosen(x) && ++seen === n;
};
const error =
  (code: number, extra: object = {}) =>
  () => ({ status: 'ERROR', code, ...extra });
const success = (data?: unknown) => () => ({ status: 'SUCCESS', code: 200, ...(data === undefined ? {} : { data }) });
/** The token with its last character changed, as §5.4's hand-picked wrong value is made. */
const lastChanged = (t: string) => t.slice(0, -1) + (t.endsWith('~') ? '-' : '~');

describe('UNAUTH-*: each hand-picked wrong token, each carrier and path, each way a refusal is wrong', () => {
  const id = 'UNAUTH-DISHES';
  const token = () => issuedToken(pass(id).exchanges, pass(id).config.app.key);
  const otherToken = () => issuedToken(pass(id).exchanges, pass(id).config.other_app!.key);
  const lead =
    'GET /dishes (§4 endpoint 3) and the paths a router may serve as it must refuse every request without a valid token (code 401 and no data at the endpoint; no data at the others): ';
  /** A request with no credential at all: no open-token, no Authorization header, no cookie. */
  const bare = (x: RecordedExchange): boolean =>
    requestOf(x).token === undefined && !x.request.headers.authorization && !x.request.headers.cookie;
  /** Whether a recorded open-token is derived from app's token (it shares a run of 8 characters with it, in any case). */
  const fromApp = (t: string | undefined): boolean => {
    if (t === undefined || t === token() || t === lastChanged(token())) return false;
    const [a, b] = [t.toLowerCase(), token().toLowerCase()];
    for (let i = 0; i + 8 <= a.length; i++) if (b.includes(a.slice(i, i + 8))) return true;
    return false;
  };

  test('a refusal with another code than 401', async () => {
    const r = await changed(id, (x) => asked('GET /dishes')(x) && bare(x), error(403), 403);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${lead}no ${TOKEN_HEADER} header: expected code 401, got HTTP 403, code 403, status "ERROR"`,
    );
    expect(r.fingerprints).toEqual([`no ${TOKEN_HEADER} header`]);
  });

  test("the empty header and the changed token are each sent, and each judged (at /dishes, other_app's token changed)", async () => {
    const rec = pass(id);
    let exchanges = withAnswers(
      rec.exchanges,
      asked('GET /dishes', (t) => t === ''),
      success([{ id: 101 }]),
      200,
    );
    exchanges = withAnswers(
      exchanges,
      asked('GET /dishes', (t) => t === lastChanged(otherToken())),
      error(401, { data: 1 }),
    );
    const r = await replay(check(id), rec.config, exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${lead}an empty ${TOKEN_HEADER} header: expected code 401, got HTTP 200, code 200, status "SUCCESS"; the real token with its last character changed (from other_app's credentials): the refusal carries data 1`,
    );
    expect(r.fingerprints).toEqual([
      `an empty ${TOKEN_HEADER} header`,
      "the real token with its last character changed (from other_app's credentials)",
    ]);
  });

  test("the token taken from the query string: a success even without data (the disabled application's token at /dishes)", async () => {
    const disabled = pass(id).config.disabled_app!.token!;
    const r = await changed(id, (x) => requestOf(x).line === `GET /dishes?token=${disabled}`, success(), 200);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${lead}the real token in the query string as token, no header (from disabled_app's credentials): the token was taken from it: answered HTTP 200, code 200, status "SUCCESS"`,
    );
    expect(r.fingerprints).toEqual([
      "the real token in the query string as token, no header (from disabled_app's credentials)",
    ]);
  });

  test('the path as a router may spell it: data without a token, even in a refusal', async () => {
    const r = await changed(id, (x) => asked('GET //dishes')(x) && bare(x), error(401, { data: [{ id: 101 }] }));
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${lead}no ${TOKEN_HEADER} header at the path after a doubled slash: GET //dishes: answered HTTP 401, code 401, status "ERROR", a refusal that carries data [{"id":101}]`,
    );
    expect(r.fingerprints).toEqual(['the path after a doubled slash']);
  });

  test('a wrong token at a path way: data is a finding there too, named with the path way', async () => {
    const r = await changed(
      id,
      asked('GET /dishes/', (t) => t === ''),
      success([{ id: 101 }]),
      200,
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${lead}an empty ${TOKEN_HEADER} header at the path with a trailing slash: GET /dishes/: answered HTTP 200, code 200, status "SUCCESS"`,
    );
    expect(r.fingerprints).toEqual([`an empty ${TOKEN_HEADER} header, the path with a trailing slash`]);
  });

  /** The recording with the token /auth issued to app changed; each token derived from it recorded as its kind's stand-in (a HAR's). */
  const withToken = (to: string): RecordedExchange[] => {
    const from = token();
    return pass(id).exchanges.map((x) => {
      const t = tokenOfRequest(x.request.headers);
      // A value holding the whole token is sent as it is (not marked derived): the token in it changes.
      const sent =
        t === lastChanged(from)
          ? lastChanged(to)
          : t?.includes(from)
            ? t.replaceAll(from, to)
            : fromApp(t)
              ? placeholderOf('derived-token')
              : t;
      // Another carrier (a Bearer header, a cookie) holds the token as it is.
      const carried = Object.fromEntries(
        Object.entries(x.request.headers).map(([k, v]) => [k, v.replaceAll(from, to)]),
      );
      const headers = t === undefined ? carried : carrying(carried, sent!);
      const response = x.response && { ...x.response, body: x.response.body.replaceAll(from, to) };
      return { ...x, request: { ...x.request, url: x.request.url.replaceAll(from, to), headers }, response };
    });
  };

  test('a token that ends in "~": its changed last character is "-", never the token itself', async () => {
    const to = `${token()}~`;
    const exchanges = withToken(to);
    expect(
      exchanges.filter((x) => tokenOfRequest(x.request.headers) === placeholderOf('derived-token')).length,
    ).toBeGreaterThan(0);
    const r = await replay(check(id), pass(id).config, exchanges);
    expect(r.status).toBe('passed');
    // The stand-in answers only a request marked as carrying a derived token: a refusal of it reaches the check.
    const refused = await replay(
      check(id),
      pass(id).config,
      withAnswers(
        exchanges,
        asked('GET /dishes', (t) => t === placeholderOf('derived-token')),
        success([1]),
        200,
      ),
    );
    expect(refused.message).toMatch(
      /: a prefix of the real token \(shrunk \d+ times\): expected code 401, got HTTP 200, code 200, status "SUCCESS"/,
    );
    // The seed that replays the generated values, once.
    expect(refused.message.match(/(?<!-)seed \d+/g)).toHaveLength(1);
    expect(refused.message).toMatch(/ \(generated values from seed (\d+): --seed \1 replays them\)$/);
  });

  test('a token too short for a way: that way is noted as not probed, the others still run', async () => {
    const to = 'tok_1234';
    expect(to).toHaveLength(SAFE_SECRET_LENGTH);
    const r = await replay(check(id), pass(id).config, withToken(to));
    expect(r.status).toBe('passed');
    // The ways the design derives from app's token at /dishes and its path ways, each too short for this token.
    expect([...new Set(r.notes)].sort()).toEqual(
      ['a part of the real token (both ends cut)', 'a prefix of the real token', 'a suffix of the real token'].map(
        (w) => `${w}: not probed, the token has ${SAFE_SECRET_LENGTH} characters`,
      ),
    );
  });

  test('a generated probe that got no answer is no finding: the check cannot judge', async () => {
    const rec = pass(id);
    const probes = rec.exchanges.filter((x) => fromApp(requestOf(x).token));
    expect(probes.length).toBeGreaterThan(0);
    const r = await replay(
      check(id),
      rec.config,
      rec.exchanges.filter((x) => x !== probes[0]),
    );
    expect(r.status).not.toBe('passed');
    expect(r.status).not.toBe('failed');
    expect(r.message).toContain('not in the recording: GET /dishes');
  });
});

describe("AUTH-07: each key pair, the prefix of app's secret key, one application or two", () => {
  const id = 'AUTH-07';
  const lead = "GET /auth must refuse every key pair that is not an application's own (§5.4: code 401, no token): ";
  const key = () => pass(id).config.app.key;
  /** A key with each letter's case swapped, as AUTH-07 respells one. */
  const swapCase = (k: string) =>
    [...k].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  /**
   * The recording and configuration with app's secret key changed (as sent whole, and respelled). The parts of the
   * old key stay as recorded: a test that needs them sent moves them itself.
   */
  const withKey = (to: string, seed = pass(id).config.fuzz.seed) => ({
    config: { ...pass(id).config, app: { ...pass(id).config.app, key: to }, fuzz: { ...pass(id).config.fuzz, seed } },
    exchanges: pass(id).exchanges.map((x) => ({
      ...x,
      request: {
        ...x.request,
        url: x.request.url.replaceAll(key(), to).replaceAll(swapCase(key()), swapCase(to)),
      },
    })),
  });
  /** The secret key sent with app's public key, in a probe of app's own pair (none of another application's). */
  const appsKey = (x: RecordedExchange): string | undefined => {
    const q = new URL(x.request.url).searchParams;
    return q.get('secret') === pass(id).config.app.secret ? q.get('key')! : undefined;
  };
  /**
   * The recording with the parts of another application's secret key (a prefix, a suffix, an inner part, drawn from
   * the seed and the application's place among the configured ones) recorded as the derived key's stand-in, as a HAR
   * holds them: they answer whatever parts a changed seed or configuration draws.
   */
  const othersPartsAsStandIns = (exchanges: RecordedExchange[]): RecordedExchange[] => {
    const { other_app: other, disabled_app: disabled } = pass(id).config;
    const owners = new Map([other!, disabled!].map((c) => [c.secret, c.key!]));
    return exchanges.map((x) => {
      const q = new URL(x.request.url).searchParams;
      const whole = owners.get(q.get('secret')!);
      const k = q.get('key')!;
      return whole !== undefined && k !== whole && whole.includes(k) ? sending(x, placeholderOf('derived-key')) : x;
    });
  };
  /** A recorded exchange with the secret key it sent changed. */
  const sending = (x: RecordedExchange, k: string): RecordedExchange => {
    const url = new URL(x.request.url);
    url.searchParams.set('key', k);
    return { ...x, request: { ...x.request, url: url.href } };
  };

  test('the swapped pair is named by the parameters it swapped', async () => {
    const { secret } = pass(id).config.app;
    const r = await changed(
      id,
      startsWith(`GET /auth?secret=${key()}&key=${secret}`),
      success({ app_token: 't' }),
      200,
    );
    expect(r.message).toBe(
      `${lead}app's key pair swapped (secret=<secret key>&key=<public key>): expected code 401, got HTTP 200, code 200, status "SUCCESS"`,
    );
    expect(r.fingerprints).toEqual(["app's key pair swapped (secret=<secret key>&key=<public key>)"]);
  });

  test("the prefix is sent marked as a derived key: a HAR's stand-in answers it; so is the public key's", async () => {
    const rec = pass(id);
    const { secret } = rec.config.app;
    // app's public key with a prefix of its secret key (the disabled application's prefix, sk_test_g, is one of app's
    // key too: it goes with the disabled application's public key, and stays as recorded).
    const prefix = (x: RecordedExchange) => {
      const k = appsKey(x);
      return k !== undefined && k !== key() && key().startsWith(k);
    };
    // A prefix of app's public key (all but its last character) with app's secret key.
    const publicPrefix = (x: RecordedExchange) =>
      new URL(x.request.url).searchParams.get('secret') === secret.slice(0, -1);
    let [marked, publicMarked] = [0, 0];
    const exchanges = rec.exchanges.map((x) => {
      const url = new URL(x.request.url);
      if (prefix(x)) {
        marked++;
        url.searchParams.set('key', placeholderOf('derived-key'));
      } else if (publicPrefix(x)) {
        publicMarked++;
        expect(url.searchParams.get('key')).toBe(key());
        url.searchParams.set('secret', placeholderOf('derived-public-key'));
      } else return x;
      return { ...x, request: { ...x.request, url: url.href } };
    });
    expect([marked, publicMarked]).toEqual([1, 1]);
    expect((await replay(check(id), rec.config, exchanges)).status).toBe('passed');
  });

  test("with no other_app, its pairs and its halves of app's are not sent", async () => {
    const { other_app: other, ...config } = pass(id).config;
    const sent = (await replay(check(id), pass(id).config, pass(id).exchanges)).evidence.length;
    // The disabled application's place among the configured ones moves up: its parts are drawn anew.
    const r = await replay(check(id), config as Config, othersPartsAsStandIns(pass(id).exchanges));
    expect(r.status, r.message).toBe('passed');
    // other_app's own 10 probes, and its public key with app's secret key and app's with its secret key.
    expect(r.evidence).toHaveLength(sent - 12);
    const keys = r.evidence.flatMap((e) => [...new URL(e.request.url).searchParams.values()]);
    expect(keys.filter((k) => k.includes('blue_lotus') || k.includes('BLUE_LOTUS'))).toEqual([]);
  });

  test(`a secret key of ${SAFE_SECRET_LENGTH} characters: no prefix probed, noted`, async () => {
    const { config, exchanges } = withKey('sk_12345');
    const r = await replay(check(id), config, exchanges);
    expect(r.status, r.message).toBe('passed');
    expect(r.notes).toEqual([
      `a prefix and a suffix of app's secret key: not probed, the key has ${SAFE_SECRET_LENGTH} characters`,
      `an inner part of app's secret key: not probed, the key has ${SAFE_SECRET_LENGTH} characters`,
    ]);
    // Every probe of the recording but app's prefix, suffix and inner part of its secret key.
    expect(r.evidence).toHaveLength(pass(id).exchanges.length - 3);
    const sent = r.evidence.flatMap((e) => {
      const k = appsKey(e as RecordedExchange);
      return k === undefined ? [] : [k];
    });
    expect(sent.filter((k) => k !== 'sk_12345' && 'sk_12345'.includes(k))).toEqual([]);
  });

  test('a secret key one character longer: the prefix is all of it but the last character, never the key', async () => {
    const to = 'sk_123456';
    // A seed whose draw over a range past the key's end would not be the one prefix there is.
    const seed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].find(
      (s) =>
        fc.sample(fc.integer({ min: SAFE_SECRET_LENGTH, max: to.length + 1 }), { seed: s, numRuns: 1 })[0]! >
        SAFE_SECRET_LENGTH,
    )!;
    const { config, exchanges } = withKey(to, seed);
    // app's recorded prefix and suffix of its secret key, moved to those of the new key (the only ones of its length).
    let [moved, suffixes] = [0, 0];
    const prefixed = exchanges.map((x, i) => {
      const k = appsKey(pass(id).exchanges[i]!);
      if (k === undefined || k === key()) return x;
      if (key().startsWith(k)) {
        moved++;
        return sending(x, to.slice(0, -1));
      }
      if (key().endsWith(k)) {
        suffixes++;
        return sending(x, to.slice(1));
      }
      return x;
    });
    expect([moved, suffixes]).toEqual([1, 1]);
    // The other applications' parts are drawn from the new seed too.
    const r = await replay(check(id), config, othersPartsAsStandIns(prefixed));
    expect(r.status, r.message).toBe('passed');
    expect(r.notes).toEqual([`an inner part of app's secret key: not probed, the key has ${to.length} characters`]);
    expect(r.evidence.map((e) => new URL(e.request.url).searchParams.get('key'))).toContain(to.slice(0, -1));
  });
});

describe("/auth's answer, for each application: what is judged, what is left to another check", () => {
  const authData = (change: (d: Record<string, unknown>) => unknown) => (json: unknown) => {
    const j = json as { data: Record<string, unknown> };
    return { ...j, data: change(j.data) };
  };
  const otherAuth = startsWith('GET /auth?secret=pk_test_blue_lotus');

  test(`AUTH-01: a token of ${SAFE_SECRET_LENGTH} characters is not noted; a token that is no string is not counted`, async () => {
    const eight = await changed(
      'AUTH-01',
      startsWith('GET /auth'),
      authData((d) => ({ ...d, app_token: 'tok_1234' })),
    );
    expect(eight.status).toBe('passed');
    expect(eight.notes).toEqual([]);
    const list = await changed(
      'AUTH-01',
      startsWith('GET /auth'),
      authData((d) => ({ ...d, app_token: ['t'] })),
    );
    expect(list.message).toBe('GET /auth: expected a non-empty string app_token in data, got ["t"]');
    expect(list.notes).toEqual([]);
  });

  test("AUTH-02 fails other_app's /auth refused (#35: the checks blocked for its token point there); AUTH-03 leaves it, and a record that is none, to AUTH-02", async () => {
    const refused = await changed('AUTH-02', otherAuth, error(401), 401);
    expect(refused.status).toBe('failed');
    expect(refused.message).toBe(
      'GET /auth with other_app\'s key pair: expected the access credential result (§2.6), answered status "ERROR", code 401 (HTTP 401)',
    );
    expect(refused.fingerprints).toEqual(['other_app:refused']);
    expect((await changed('AUTH-03', otherAuth, error(401), 401)).status).toBe('passed');
    const none = await changed(
      'AUTH-03',
      otherAuth,
      authData(() => null),
    );
    expect(none.status).toBe('passed');
    const text = await changed(
      'AUTH-03',
      otherAuth,
      authData(() => 'x'),
    );
    expect(text.status).toBe('passed');
  });

  /** A replay whose recording holds only the token an application used, not its /auth (a browser's cached token). */
  const withoutAuth = async (id: string, who: 'app' | 'other_app') => {
    const rec = pass(id);
    const key = rec.config[who]!.key;
    const token = issuedToken(rec.exchanges, key);
    const exchanges = rec.exchanges.filter((x) => new URL(x.request.url).searchParams.get('key') !== key);
    const { records } = await runChecks(
      rec.config,
      [check(id)],
      (r) => new RecordedSource(exchanges, rec.config.base_url, r, { tokens: { [who]: token } }),
    );
    return records[0]!;
  };

  test("AUTH-02, AUTH-03: a recording without other_app's /auth judges app's, as a sample", async () => {
    for (const id of ['AUTH-02', 'AUTH-03']) {
      const r = await withoutAuth(id, 'other_app');
      expect(r.status, id).toBe('passed');
      expect(r.sampled, id).toBe(
        'the recorded answers without GET /auth of other_app (only its token is in the recording)',
      );
    }
  });

  test("AUTH-02, AUTH-03: a recording without app's /auth does not pass them", async () => {
    for (const id of ['AUTH-02', 'AUTH-03']) {
      const r = await withoutAuth(id, 'app');
      expect(r.status, id).not.toBe('passed');
      expect(r.message, id).toContain('not in the recording: GET /auth?');
    }
  });

  test('AUTH-04: an /auth with no merchant, or no record, is left to AUTH-02; two fields differing are both named', async () => {
    const noData = await changed(
      'AUTH-04',
      otherAuth,
      authData(() => null),
    );
    expect(noData.status).toBe('passed');
    const noMerchant = await changed(
      'AUTH-04',
      startsWith('GET /auth?secret=pk_test_golden_dragon'),
      authData((d) => ({ ...d, merchant: null })),
    );
    expect(noMerchant.status).toBe('passed');
    const two = await changed(
      'AUTH-04',
      otherAuth,
      authData((d) => ({ ...d, merchant: { ...(d.merchant as object), phone: '1', name: 'N' } })),
    );
    expect(two.message).toBe(
      'other_app: the merchant of /auth and of /merchant differ in name ("N" vs "Blue Lotus Café"), phone ("1" vs null)',
    );
    expect(two.fingerprints).toEqual(['other_app:merchant.name', 'other_app:merchant.phone']);
  });
});

describe('AUTH-05, AUTH-10: several endpoints refused are each named', () => {
  test('AUTH-05: two refusals', async () => {
    const rec = pass('AUTH-05');
    const token = issuedToken(rec.exchanges, rec.config.app.key);
    let exchanges = withAnswers(
      rec.exchanges,
      asked('GET /seats', (t) => t === token),
      error(401),
      401,
    );
    exchanges = withAnswers(
      exchanges,
      asked('GET /orders', (t) => t === token),
      error(401),
      401,
    );
    const r = await replay(check('AUTH-05'), rec.config, exchanges);
    expect(r.message).toMatch(
      /^with the token from \/auth, expected the data, got a refusal: GET \/\w+: [^;]+; GET \/\w+: [^;]+$/,
    );
    expect(r.message.split('; ').sort()).toEqual(
      [
        'GET /orders: HTTP 401, code 401, status "ERROR"',
        'with the token from /auth, expected the data, got a refusal: GET /seats: HTTP 401, code 401, status "ERROR"',
      ].sort(),
    );
  });

  test("AUTH-10: the disabled application's token taken at two endpoints", async () => {
    const token = pass('AUTH-10').config.disabled_app!.token!;
    const rec = pass('AUTH-10');
    let exchanges = withAnswers(
      rec.exchanges,
      asked('GET /seats', (t) => t === token),
      success([]),
      200,
    );
    exchanges = withAnswers(
      exchanges,
      asked('GET /merchant', (t) => t === token),
      success({ id: 1 }),
      200,
    );
    const r = await replay(check('AUTH-10'), rec.config, exchanges);
    expect(r.status).toBe('failed');
    expect(r.message.startsWith("expected code 401 for the disabled application's token, got GET /")).toBe(true);
    expect(r.message.split('; ')).toHaveLength(2);
    expect(r.fingerprints!.sort()).toEqual(['GET /merchant', 'GET /seats']);
  });
});

describe('INFO-AUTH-TOKEN: what each pair of /auth answers is observed as', () => {
  const id = 'INFO-AUTH-TOKEN';
  const auth = startsWith('GET /auth');
  const token = (t: unknown) => (json: unknown) => {
    const j = json as { data: Record<string, unknown> };
    return { ...j, data: { ...j.data, app_token: t } };
  };
  const observed = async (exchanges: RecordedExchange[]) =>
    (await replay(check(id), pass(id).config, exchanges)).observation;

  test('no token in either answer, or in the second only', async () => {
    const none = await observed(withAnswers(pass(id).exchanges, auth, token(undefined)));
    expect(none).toBe('a /auth call carried no app_token');
    const second = await observed(withAnswers(pass(id).exchanges, nth(auth, 2), token(undefined)));
    expect(second).toBe('a /auth call carried no app_token');
  });

  test('the same token twice', async () => {
    expect(await observed(withAnswers(pass(id).exchanges, auth, token('tok_same_every_time')))).toBe(
      'the same token on every /auth call',
    );
  });

  test('the earlier token refused, or answered otherwise', async () => {
    const merchant = asked('GET /merchant');
    expect(await observed(withAnswers(pass(id).exchanges, merchant, error(401), 401))).toBe(
      'a new token on every /auth call; the earlier token is refused (401) once a new one is issued',
    );
    expect(await observed(withAnswers(pass(id).exchanges, merchant, error(500), 500))).toBe(
      'a new token on every /auth call; the earlier token then gets HTTP 500, code 500, status "ERROR"',
    );
  });
});

describe('a derived credential is a secret of the run, under its kind; a value holding the whole token is not', () => {
  /**
   * The evidence of a run answered from a recording as a live server answers (a source that holds nothing, so the
   * check adds what it derives to the run's secrets, as it does live), as it is kept: each secret under its marker.
   */
  const evidence = async (id: string, exchanges: RecordedExchange[]) => {
    const rec = pass(id);
    const { records } = await runChecks(rec.config, [check(id)], (redactor) => {
      const recorded = new RecordedSource(exchanges, rec.config.base_url, redactor);
      return { redactor, send: (spec) => recorded.send(spec), close: () => recorded.close() };
    });
    expect(records[0]!.status).toBe('passed');
    return records[0]!.evidence.map(
      (e) =>
        `${decodeURIComponent(e.request.url).replace(/^.*\/open/, '')} ${tokenOfRequest(e.request.headers) ?? '-'}`,
    );
  };

  test('a suffix of the token (UNAUTH-DISHES)', async () => {
    const shown = await evidence('UNAUTH-DISHES', pass('UNAUTH-DISHES').exchanges);
    expect(shown).toContain('/dishes [REDACTED:derived-token]');
  });

  test('the token with characters around it (UNAUTH-DISH): the token in it is redacted, not the whole', async () => {
    const shown = await evidence('UNAUTH-DISH', pass('UNAUTH-DISH').exchanges);
    // At /dishes/101 itself the design sends this way from app's token (appFor): the token inside is redacted.
    expect(
      shown.filter(
        (e) => /^\/dishes\/101 [\w.-]*\[REDACTED:token\][\w.-]*$/.test(e) && !e.endsWith(' [REDACTED:token]'),
      ),
    ).not.toEqual([]);
  });

  test("the prefix of app's secret key, and of its public key (AUTH-07)", async () => {
    const shown = await evidence('AUTH-07', pass('AUTH-07').exchanges);
    expect(shown).toContain('/auth?secret=[REDACTED:public-key]&key=[REDACTED:derived-key] -');
    // The public key cut and respelled, with the right secret key: a derived public key, for each application.
    expect(
      shown.filter((e) => e === '/auth?secret=[REDACTED:derived-public-key]&key=[REDACTED:secret-key] -'),
    ).toHaveLength(2);
    expect(shown).toContain('/auth?secret=[REDACTED:derived-public-key]&key=[REDACTED:other-secret-key] -');
    expect(shown).toContain('/auth?secret=[REDACTED:derived-public-key]&key=[REDACTED:disabled-secret-key] -');
    // With spaces around it, the public key is redacted whole inside.
    expect(shown).toContain('/auth?secret=+[REDACTED:public-key]+&key=[REDACTED:secret-key] -');
  });
});

test("INFO-AUTH-TOKEN: a renewal earlier in the run (AUTH-05's token refused after it had worked) is told", async () => {
  const rec = pass('AUTH-05');
  const first = issuedToken(rec.exchanges, rec.config.app.key);
  const renewed = 'tok_renewed_after_401_0001';
  const withToken = (x: RecordedExchange): RecordedExchange => ({
    ...x,
    request: { ...x.request, headers: carrying(x.request.headers, renewed) },
  });
  // /auth issues the first token, then the renewed one; /seats and /merchant refuse the first once it has worked.
  // other_app's requests (AUTH-05 asks with its token too) are answered as recorded: its token is never refused.
  const exchanges = rec.exchanges.flatMap((x): RecordedExchange[] => {
    const { line, token } = requestOf(x);
    if (line.startsWith('GET /auth'))
      return [x, { ...x, response: { ...x.response!, body: x.response!.body.replace(first, renewed) } }];
    if (token !== first) return [x];
    if (line !== 'GET /seats' && line !== 'GET /merchant') return [x, withToken(x)];
    return [{ ...x, response: { ...x.response!, status: 401, body: '{"status":"ERROR","code":401}' } }, withToken(x)];
  });
  const { records } = await runChecks(
    rec.config,
    [check('AUTH-05'), check('INFO-AUTH-TOKEN')],
    (r) => new RecordedSource(exchanges, rec.config.base_url, r),
    { sequential: true },
  );
  expect(records.map((r) => r.status)).toEqual(['passed', 'passed']);
  expect(records[1]!.observation).toBe(
    'the same token on every /auth call; during the run: the token issued to app at the start of the run was refused with 401 after it had worked (first at GET /seats, and GET /merchant refused it too); the run authenticated once more and went on with the new token',
  );
});
