/**
 * Ways a check fails that no mutant's recording shows: each a real recorded pass with one answer changed to break the
 * rule in that way, so each failure branch of a check is proven, not only the one its mutant takes.
 */
import { describe, expect, test } from 'vitest';
import { LIST_QUERY } from '../../suites/errors.js';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers, withBodies } from './altered.js';
import { TOKEN_HEADER } from '../../core/spec/auth-scheme.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

/**
 * The checks that judge other_app's lists, details and order lines as well since #35: their ways here are app's (a
 * changed `GET /seats` would change both merchants' answers), replayed without other_app; other_app's ways are
 * proven live by reference/mutants/other-merchant.ts.
 */
const JUDGE_BOTH = new Set(['CONS-01', 'CONS-02', 'CONS-03', 'CONS-04', 'CONS-05', 'CONS-06', 'CONS-07', 'CONS-08']);

async function replayChanged(
  id: string,
  chosen: Parameters<typeof withAnswers>[1],
  change: Parameters<typeof withAnswers>[2],
  status?: number,
) {
  const rec = recordingsOf(id).pass!;
  const { other_app: _other, ...appOnly } = rec.config;
  return replay(
    check(id),
    JUDGE_BOTH.has(id) ? appOnly : rec.config,
    withAnswers(rec.exchanges, chosen, change, status),
  );
}

describe('UNAUTH-*: a refusal that carries data fails, with the code right', () => {
  for (const [id, path] of [
    ['UNAUTH-DISHES', 'GET /dishes'],
    ['UNAUTH-MERCHANT', 'GET /merchant'],
  ] as const) {
    test(id, async () => {
      const r = await replayChanged(
        id,
        (x) => requestOf(x).line === path && requestOf(x).token === undefined,
        (json) => ({ ...(json as object), data: [{ id: 101 }] }),
      );
      expect(r.status).toBe('failed');
      expect(r.message).toContain(`no ${TOKEN_HEADER} header: the refusal carries data [{"id":101}]`);
    });
  }
});

describe("ISO-02/04: /merchant answering the other merchant's record fails, though no list leaks", () => {
  const A = { label: 'merchant A', id: 1, merchant_id: 'MCH20240001' };
  const B = { label: 'merchant B', id: 2, merchant_id: 'MCH20240002' };
  for (const [id, me, other] of [
    ['ISO-02', A, B],
    ['ISO-04', B, A],
  ] as const) {
    for (const [how, leak] of [
      ['by id', { id: other.id }],
      ['by merchant_id', { merchant_id: other.merchant_id }],
    ] as const)
      test(`${id}, ${how}`, async () => {
        const r = await replayChanged(
          id,
          (x) => requestOf(x).line === 'GET /merchant',
          (json) => {
            const j = json as { data: Record<string, unknown> };
            expect(j.data).toMatchObject({ id: me.id, merchant_id: me.merchant_id });
            return { ...j, data: { ...j.data, ...leak } };
          },
        );
        const shown: { id: number; merchant_id: string } = Object.assign(
          { id: me.id, merchant_id: me.merchant_id },
          leak,
        );
        expect(r.status).toBe('failed');
        expect(r.message).toContain(
          `GET /merchant with ${me.label}'s token answered ${other.label}'s merchant record (id ${shown.id}, merchant_id "${shown.merchant_id}")`,
        );
        expect(r.fingerprints).toEqual(['GET /merchant:merchant']);
      });
  }
});

describe('ENV-01: every success is judged, for each application, however it breaks', () => {
  const rec = () => recordingsOf('ENV-01').pass!;
  const answer = (line: string, who: 'app' | 'other_app') => {
    const token = issuedToken(rec().exchanges, rec().config[who]!.key);
    return (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line && requestOf(x).token === token;
  };
  const judge = (exchanges: ReturnType<typeof withBodies>) => replay(check('ENV-01'), rec().config, exchanges);

  test("a byte order mark before the JSON, in other_app's answer too", async () => {
    for (const [who, shown] of [
      ['app', 'GET /seats'],
      ['other_app', "GET /seats with other_app's token"],
    ] as const) {
      const r = await judge(withBodies(rec().exchanges, answer('GET /seats', who), (b) => `\uFEFF${b}`));
      expect(r.status, who).toBe('failed');
      expect(r.message).toBe(
        `expected {status: "SUCCESS", code: 200, data} on every success: ${shown}: the body starts with a byte order mark (U+FEFF), which a JSON sender MUST NOT add (RFC 8259 §8.1; the answers are JSON, §1)`,
      );
    }
  });

  test('a body that is not JSON', async () => {
    const r = await judge(withBodies(rec().exchanges, answer('GET /merchant', 'app'), () => '<html>ok</html>'));
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      'expected {status: "SUCCESS", code: 200, data} on every success: GET /merchant: HTTP 200 with a body that is not JSON ("<html>ok</html>")',
    );
  });

  test('a refusal is not judged as a success', async () => {
    const r = await judge(
      withAnswers(rec().exchanges, answer('GET /orders', 'other_app'), () => ({ status: 'ERROR', code: 401 }), 401),
    );
    expect(r.status).toBe('passed');
  });
});

/** A recorded request chosen by its path and query string ("GET /auth?key=…"), by its start. */
const starting =
  (line: string) =>
  (x: Parameters<typeof requestOf>[0]): boolean =>
    requestOf(x).line.startsWith(line);
const refusalWith = (data: unknown) => (json: unknown) => ({ ...(json as object), data });

describe('the /auth refusals: each way a refusal can be wrong', () => {
  test('AUTH-06: a success, a refusal carrying a token, an error body that is no error envelope, one that is no JSON', async () => {
    const r = await replayChanged(
      'AUTH-06',
      (x) => requestOf(x).line === 'GET /auth',
      () => ({
        status: 'SUCCESS',
        code: 200,
        data: { app_token: 'tok' },
      }),
      200,
    );
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      'GET /auth with neither: expected code 400 or 401, got HTTP 200, code 200, status "SUCCESS"',
    );
    const carried = await replayChanged('AUTH-06', starting('GET /auth?key='), refusalWith({ merchant: 1 }));
    expect(carried.message).toBe('GET /auth without secret: the refusal carries data {"merchant":1}');
    const noEnvelope = await replayChanged('AUTH-06', starting('GET /auth?secret='), (j) => ({
      ...(j as object),
      status: 'SUCCESS',
    }));
    expect(noEnvelope.message).toMatch(
      /^GET \/auth without key: the error body is not an error envelope \(§7\): \/status /,
    );
    const rec = recordingsOf('AUTH-06').pass!;
    const notJson = await replay(
      check('AUTH-06'),
      rec.config,
      withBodies(rec.exchanges, starting('GET /auth?secret='), () => 'no'),
    );
    expect(notJson.message).toMatch(
      /^GET \/auth without key: expected an error envelope with code 400 or 401, got HTTP 400 with a body that is not JSON \("no"\)/,
    );
  });

  test('AUTH-06: a refusal with a mismatched HTTP status passes, noted', async () => {
    const r = await replayChanged('AUTH-06', starting('GET /auth?key='), (j) => j, 500);
    expect(r.status).toBe('passed');
    expect(r.notes).toContain('GET /auth without secret: HTTP 500 with envelope code 400');
  });

  test("AUTH-07: a refusal carrying data, for other_app's pair too", async () => {
    const r = await replayChanged(
      'AUTH-07',
      starting('GET /auth?secret=pk_test_blue_lotus_K3p9&key=sk_test_golden'),
      refusalWith([1]),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      "GET /auth must refuse every key pair that is not an application's own (§5.4: code 401, no token): other_app's public key with app's secret key: the refusal carries data [1]",
    );
    expect(r.fingerprints).toEqual(["other_app's public key with app's secret key"]);
  });

  test("AUTH-10: the disabled application's token refused, but with data", async () => {
    const token = recordingsOf('AUTH-10').pass!.config.disabled_app!.token!;
    const r = await replayChanged(
      'AUTH-10',
      (x) => requestOf(x).line === 'GET /orders' && requestOf(x).token === token,
      refusalWith([{ id: 5001 }]),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      "expected code 401 for the disabled application's token, got GET /orders: the refusal carries data",
    );
    expect(r.fingerprints).toEqual(['GET /orders']);
  });
});

describe("/auth's answer: each member judged", () => {
  const authData = (change: (d: Record<string, unknown>) => Record<string, unknown>) => (json: unknown) => {
    const j = json as { data: Record<string, unknown> };
    return { ...j, data: change(j.data) };
  };

  test('AUTH-01: an empty token fails; a short one is noted', async () => {
    const empty = await replayChanged(
      'AUTH-01',
      starting('GET /auth'),
      authData((d) => ({ ...d, app_token: '' })),
    );
    expect(empty.message).toBe('GET /auth: expected a non-empty string app_token in data, got ""');
    const short = await replayChanged(
      'AUTH-01',
      starting('GET /auth'),
      authData((d) => ({ ...d, app_token: 'tok1' })),
    );
    expect(short.status).toBe('passed');
    expect(short.notes.join()).toContain('the issued app_token has 4 characters, too few to redact safely everywhere');
  });

  test("AUTH-03: app's app_secret alone, app_key alone", async () => {
    const secret = await replayChanged(
      'AUTH-03',
      starting('GET /auth?secret=pk_test_golden_dragon'),
      authData((d) => ({ ...d, app_secret: 'x' })),
    );
    expect(secret.message).toBe('GET /auth: app_secret is "x", expected the public key sent as secret');
    expect(secret.fingerprints).toEqual(['app_secret']);
    const key = await replayChanged(
      'AUTH-03',
      starting('GET /auth?secret=pk_test_golden_dragon'),
      authData((d) => ({ ...d, app_key: 'y' })),
    );
    expect(key.message).toBe('GET /auth: app_key is "y", expected the secret key sent as key');
    expect(key.fingerprints).toEqual(['app_key']);
  });

  test("AUTH-04: other_app's merchants differ", async () => {
    const r = await replayChanged(
      'AUTH-04',
      starting('GET /auth?secret=pk_test_blue_lotus'),
      authData((d) => ({ ...d, merchant: { ...(d.merchant as object), phone: '1' } })),
    );
    expect(r.message).toBe('other_app: the merchant of /auth and of /merchant differ in phone ("1" vs null)');
    expect(r.fingerprints).toEqual(['other_app:merchant.phone']);
  });
});

describe("the shape checks: each application's answer judged, a refusal or an empty list said", () => {
  const tokenOf = (id: string, who: 'app' | 'other_app') => {
    const rec = recordingsOf(id).pass!;
    return issuedToken(rec.exchanges, rec.config[who]!.key);
  };
  const asked = (id: string, line: string, who: 'app' | 'other_app') => {
    const token = tokenOf(id, who);
    return (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line && requestOf(x).token === token;
  };
  const refused = () => ({ status: 'ERROR', code: 401 });

  test("DISH-01: other_app's list refused is noted, app's still judged; app's data null fails", async () => {
    const r = await replayChanged('DISH-01', asked('DISH-01', 'GET /dishes', 'other_app'), refused, 401);
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      `GET /dishes with other_app's token was refused (HTTP 401, code 401, status "ERROR"), so its data could not be judged (AUTH-05 reports the refusal)`,
    );
    const none = await replayChanged('DISH-01', asked('DISH-01', 'GET /dishes', 'app'), refusalWith(null));
    expect(none.message).toBe('GET /dishes: expected data to be an array, got null');
    const one = await replayChanged('DISH-01', asked('DISH-01', 'GET /dishes', 'other_app'), (j) => ({
      ...(j as object),
      data: { id: 201 },
    }));
    expect(one.message).toBe("GET /dishes with other_app's token: expected data to be an array, got object");
  });

  test("SEAT-01: other_app's empty list is noted", async () => {
    const r = await replayChanged('SEAT-01', asked('SEAT-01', 'GET /seats', 'other_app'), refusalWith([]));
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      "GET /seats with other_app's token is empty: the record checks built on it had nothing to check",
    );
  });

  test("MER-01: other_app's /merchant with no envelope is noted; app's that is an array fails", async () => {
    const rec = recordingsOf('MER-01').pass!;
    const r = await replay(
      check('MER-01'),
      rec.config,
      withBodies(rec.exchanges, asked('MER-01', 'GET /merchant', 'other_app'), () => '[]'),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      "GET /merchant with other_app's token answered no envelope with data (HTTP 200 with JSON that is not an object ([])), so its data could not be judged (ENV-01 reports the envelope)",
    );
    const list = await replayChanged('MER-01', asked('MER-01', 'GET /merchant', 'app'), (j) => ({
      ...(j as { data: unknown }),
      data: [(j as { data: unknown }).data],
    }));
    expect(list.message).toBe('GET /merchant: expected one merchant record at /data, got an array of 1');
    expect(list.fingerprints).toEqual(['merchant:array']);
  });
});

describe('the error checks: each way an error answer can be wrong', () => {
  const tokenless = (line: string) => (x: Parameters<typeof requestOf>[0]) =>
    requestOf(x).line === line && requestOf(x).token === undefined;
  const withToken = (line: string) => (x: Parameters<typeof requestOf>[0]) =>
    requestOf(x).line === line && requestOf(x).token !== undefined;

  test('ERR-01: the answer without a token carries data; 401 there is accepted', async () => {
    const r = await replayChanged('ERR-01', tokenless('GET /conformance-unknown-interface'), refusalWith([1]));
    expect(r.message).toBe('GET /conformance-unknown-interface without a token: the error carries data');
    const auth = await replayChanged('ERR-01', tokenless('GET /conformance-unknown-interface'), () => ({
      status: 'ERROR',
      code: 401,
    }));
    expect(auth.status).toBe('passed');
  });

  test('ERR-02: an error carrying data, an error with another code, each with its id kind as fingerprint', async () => {
    const data = await replayChanged('ERR-02', withToken('GET /dishes/conformance-unknown-id'), refusalWith({ id: 1 }));
    expect(data.message).toBe(
      'GET /dishes/conformance-unknown-id (an id that is not in /dishes): the error carries data {"id":1}',
    );
    expect(data.fingerprints).toEqual(['GET /dishes/:unknown-text-id']);
    const code = await replayChanged('ERR-02', withToken('GET /dishes/1000104'), (j) => ({
      ...(j as object),
      code: 500,
    }));
    expect(code.message).toBe(
      'GET /dishes/1000104 (an id that is not in /dishes): expected code 400 or 404, got HTTP 404, code 500, status "ERROR"',
    );
    expect(code.fingerprints).toEqual(['GET /dishes/:unknown-number-id']);
  });

  test('ERR-04: an error body that is not JSON, one with a string code', async () => {
    const rec = recordingsOf('ERR-04').pass!;
    const r = await replay(
      check('ERR-04'),
      rec.config,
      withBodies(rec.exchanges, tokenless('GET /seats/11'), () => 'denied'),
    );
    expect(r.message).toBe(
      'expected every error body to be an envelope {status: a string, not "SUCCESS", code: integer}, as JSON (a JSON Content-Type, UTF-8): GET /seats/11 without a token: HTTP 401 with a body that is not JSON ("denied")',
    );
    expect(r.fingerprints).toEqual(['GET /seats/:id without a token']);
    const code = await replayChanged('ERR-04', tokenless('GET /auth'), (j) => ({ ...(j as object), code: '400' }));
    expect(code.message).toMatch(
      /^expected every error body to be an envelope \{status: a string, not "SUCCESS", code: integer\}, as JSON \(a JSON Content-Type, UTF-8\): GET \/auth without secret and key: \/code must be integer.* \(got HTTP 400, code "400", status "ERROR"\)$/,
    );
  });

  test('ERR-05: an HTTP status other than 200 and the envelope code is observed, by request', async () => {
    const r = await replayChanged('ERR-05', tokenless('GET /orders'), (j) => j, 403);
    expect(r.status).toBe('passed');
    expect(r.observation).toBe(
      'HTTP statuses other than 200 and other than the envelope code: GET /orders without a token: HTTP 403 with envelope code 401',
    );
  });

  test('ERR-06: a 400 passes; other data fails as applied; a 500 fails; a plain list that fails is noted', async () => {
    const q = `?${new URLSearchParams(LIST_QUERY).toString()}`;
    const refused = await replayChanged(
      'ERR-06',
      withToken(`GET /seats${q}`),
      () => ({ status: 'ERROR', code: 400 }),
      400,
    );
    expect(refused.status).toBe('passed');
    const applied = await replayChanged('ERR-06', withToken(`GET /dishes${q}`), refusalWith([]));
    // Both applications' lists with the parameters are answered so (each with its own token): both are judged.
    const appliedWay =
      'answered SUCCESS with other records than GET /dishes, which answered the same records when asked again: the parameters were applied, and §4 rule 2 accepts none (ignoring them answers the same records, in any order)';
    expect(applied.message).toBe(
      `expected the same data as without parameters (ignored) or an error envelope with code 400, got GET /dishes${q} ${appliedWay}; GET /dishes${q} with other_app's token ${appliedWay}`,
    );
    expect(applied.fingerprints).toEqual(['GET /dishes?query:applied', 'other_app:GET /dishes?query:applied']);
    const crashed = await replayChanged(
      'ERR-06',
      withToken(`GET /orders${q}`),
      () => ({ status: 'ERROR', code: 500 }),
      500,
    );
    expect(crashed.message).toBe(
      `expected the same data as without parameters (ignored) or an error envelope with code 400, got GET /orders${q}: HTTP 500, code 500, status "ERROR"; GET /orders${q} with other_app's token: HTTP 500, code 500, status "ERROR"`,
    );
    expect(crashed.fingerprints).toEqual(['GET /orders?query', 'other_app:GET /orders?query']);
    const plain = await replayChanged('ERR-06', withToken('GET /seats'), () => ({ status: 'ERROR', code: 500 }), 500);
    expect(plain.notes).toContain('GET /seats does not answer SUCCESS even without parameters; not judged here');
  });
});

describe('the consistency checks: each way records can disagree, and what is not compared said', () => {
  type Order = Record<string, unknown> & { id: number; dishes: Array<Record<string, unknown>> };
  const orders = (change: (os: Order[]) => Order[]) => (json: unknown) => {
    const j = json as { data: Order[] };
    return { ...j, data: change(structuredClone(j.data)) };
  };
  const listOf = (path: string) => (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === path;

  test('CONS-04: an id three times', async () => {
    const r = await replayChanged('CONS-04', listOf('GET /seats'), (j) => {
      const d = (j as { data: unknown[] }).data;
      return { ...(j as object), data: [...d, d[0], d[0]] };
    });
    expect(r.message).toBe('1 id is repeated within a list: GET /seats lists id 11 3 times');
    expect(r.fingerprints).toEqual(['GET /seats:11']);
  });

  test("CONS-06: an order's merchant_id (an empty one passes, one that is not a string is not compared)", async () => {
    const r = await replayChanged(
      'CONS-06',
      listOf('GET /orders'),
      orders((os) => os.map((o) => (o.id === 5003 ? { ...o, merchant_id: 'MCH9' } : o))),
    );
    expect(r.message).toBe(
      '1 record carries another merchant_id than GET /merchant ("MCH20240001"): order 5003 has merchant_id "MCH9"',
    );
    expect(r.fingerprints).toEqual(['order:5003:merchant_id']);
    const skipped = await replayChanged(
      'CONS-06',
      listOf('GET /orders'),
      orders((os) => os.map((o) => (o.id === 5003 ? { ...o, merchant_id: 7 } : o))),
    );
    expect(skipped.status).toBe('passed');
    expect(skipped.notes).toContain('not compared, 1: merchant_id is not a string (see ORD-01): order 5003');
  });

  test('CONS-07: seat_id 0 with a seat fails; a seat_id with no seat object is noted', async () => {
    const zero = await replayChanged(
      'CONS-07',
      listOf('GET /orders'),
      orders((os) => os.map((o) => (o.id === 5001 ? { ...o, seat_id: 0 } : o))),
    );
    expect(zero.message).toBe(
      '1 of 3 orders disagree with their own seat: order 5001 has seat_id 0 (no seat) but its seat is seat 11',
    );
    expect(zero.fingerprints).toEqual(['order:5001:seat_id']);
    const none = await replayChanged(
      'CONS-07',
      listOf('GET /orders'),
      orders((os) => os.map((o) => (o.id === 5002 ? { ...o, seat: null } : o))),
    );
    expect(none.status).toBe('passed');
    expect(none.notes).toContain('1 order names a seat_id but carries no seat object: nothing to compare');
  });

  test('CONS-09: pivot.dish_id naming another dish; lines that cannot be compared are noted', async () => {
    const r = await replayChanged(
      'CONS-09',
      listOf('GET /orders'),
      orders((os) =>
        os.map((o) =>
          o.id === 5002
            ? { ...o, dishes: o.dishes.map((d) => ({ ...d, pivot: { ...(d.pivot as object), dish_id: 105 } })) }
            : o.id === 5003
              ? { ...o, dishes: 'none' as unknown as Order['dishes'] }
              : o,
        ),
      ),
    );
    expect(r.message).toBe(
      '1 of 5 order lines have a pivot that names another order or dish: order 5002, dish 104: pivot.dish_id is 105',
    );
    expect(r.fingerprints).toEqual(['order:5002:dish:104:pivot.dish_id']);
    expect(r.notes).toContain('not compared, 1: dishes is not an array (see ORD-01): order 5003');
  });
});

describe("ISO-01: each way merchant B's id can resolve with merchant A's token", () => {
  const detail = (line: string) => (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line;
  const head = "GET /seats/21 with merchant A's token";
  const failed = (finding: string) =>
    `1 of the 3 dish and seat ids of merchant B (other_app) asked for with the token of merchant A (app) resolved where they must not: ${finding}`;

  test('SUCCESS with another record, an error carrying their record, an error with another code', async () => {
    const other = await replayChanged(
      'ISO-01',
      detail('GET /seats/21'),
      () => ({ status: 'SUCCESS', code: 200, data: [] }),
      200,
    );
    expect(other.message).toBe(
      failed(`${head} answered SUCCESS (data []) for merchant B's seat 21; expected an error with code 400 or 404`),
    );
    expect(other.fingerprints).toEqual(['seat:21']);
    const carried = await replayChanged('ISO-01', detail('GET /seats/21'), (j) => ({
      ...(j as object),
      data: { id: 21, user_id: 2 },
    }));
    expect(carried.message).toBe(failed(`${head} answered an error that carries merchant B's seat 21 (user_id 2)`));
    const code = await replayChanged('ISO-01', detail('GET /seats/21'), () => ({ status: 'ERROR', code: 500 }), 500);
    expect(code.message).toBe(
      failed(
        `${head} (merchant B's seat 21): expected an error with code 400 or 404, got HTTP 500, code 500, status "ERROR"`,
      ),
    );
    const refused = await replayChanged('ISO-01', detail('GET /seats/21'), () => ({ status: 'ERROR', code: 400 }), 400);
    expect(refused.status).toBe('passed');
  });
});

describe('the transport checks: each header and origin way', () => {
  const withContentType = (line: string, value: string | undefined) => {
    const rec = recordingsOf('TRANS-01').pass!;
    let changed = 0;
    const exchanges = rec.exchanges.map((x) => {
      if (!requestOf(x).line.startsWith(line) || !x.response) return x;
      changed++;
      const { 'content-type': _, ...headers } = x.response.headers;
      return {
        ...x,
        response: { ...x.response, headers: value === undefined ? headers : { ...headers, 'content-type': value } },
      };
    });
    expect(changed).toBeGreaterThan(0);
    return replay(check('TRANS-01'), rec.config, exchanges);
  };
  const lead = 'expected Content-Type application/json (charset utf-8 or none), got ';

  test('TRANS-01: a charset that is not UTF-8, no header at all; a +json type, a quoted UTF-8 and other parameters pass', async () => {
    const latin = await withContentType('GET /auth', 'application/json; charset=iso-8859-1');
    // Both applications' /auth answers are changed, and both are judged (#27: every application).
    const latinWay = 'Content-Type "application/json; charset=iso-8859-1" names charset "iso-8859-1", not UTF-8';
    expect(latin.message).toBe(`${lead}GET /auth: ${latinWay}; GET /auth with other_app's key pair: ${latinWay}`);
    const none = await withContentType('GET /conformance-unknown-interface', undefined);
    expect(none.message).toBe(`${lead}GET /conformance-unknown-interface: no Content-Type header`);
    for (const ok of [
      'application/problem+json',
      'application/json; charset="UTF-8"',
      'Application/JSON; boundary=x; charset=utf8',
    ])
      expect((await withContentType('GET /merchant', ok)).status, ok).toBe('passed');
  });

  test('TRANS-03: a plain HTTP origin that is not the API is observed; one serving data without a token fails', async () => {
    const rec = recordingsOf('TRANS-03').pass!;
    const answered = (status: number, body: string) =>
      rec.exchanges.map((x) => ({
        request: x.request,
        response: { status, headers: { 'content-type': 'text/html' }, body },
      }));
    const html = await replay(check('TRANS-03'), rec.config, answered(400, '<html>plain</html>'));
    expect(html.status).toBe('passed');
    expect(html.observation).toBe(
      'plain HTTP answers HTTP 400 with a body that is not JSON ("<html>plain</html>"), not the API',
    );
    const data = await replay(
      check('TRANS-03'),
      rec.config,
      answered(200, '{"status":"SUCCESS","code":200,"data":{"id":1}}'),
    );
    expect(data.status).toBe('failed');
    // Every endpoint is asked without a credential (/auth without its key pair): each that serves data is named.
    const served = (path: string) =>
      `GET http:\\/\\/127\\.0\\.0\\.1:\\d+\\/open\\/${path}, without a credential, over plain HTTP: expected no merchant data \\(only HTTPS is supported\\), got HTTP 200, code 200, status "SUCCESS" with data \\{"id":1\\}`;
    expect(data.message).toMatch(new RegExp(`^${served('auth')}; ${served('merchant')}; ${served('dishes')}; `));
    expect(data.fingerprints).toEqual(['/auth', '/dishes', '/merchant', '/orders', '/seats']);
  });
});

describe('the credential checks: each place and kind of credential', () => {
  const inRecord = (id: string, line: string, who: 'app' | 'other_app', field: Record<string, unknown>) => {
    const rec = recordingsOf(id).pass!;
    const token = issuedToken(rec.exchanges, rec.config[who]!.key);
    return replay(
      check(id),
      rec.config,
      withAnswers(
        rec.exchanges,
        (x) => requestOf(x).line === line && requestOf(x).token === token,
        (json) => {
          const j = json as { data: Array<Record<string, unknown>> | Record<string, unknown> };
          const data = Array.isArray(j.data)
            ? j.data.map((r, i) => (i === 0 ? { ...r, ...field } : r))
            : { ...j.data, ...field };
          return { ...j, data };
        },
      ),
    );
  };

  test("SEC-01: a key in a list record of other_app's, a token in a detail", async () => {
    const { config } = recordingsOf('SEC-01').pass!;
    const key = await inRecord('SEC-01', 'GET /seats', 'other_app', { remark: `key ${config.app.key}` });
    expect(key.message).toBe(
      "1 place where a response carries a credential (only /auth's app_secret, app_key and app_token may): GET /seats (other_app) carries app's secret key in data[0].remark",
    );
    expect(key.fingerprints).toEqual(['GET /seats (other_app) data[].remark']);
    const disabled = await inRecord('SEC-01', 'GET /dishes/104', 'app', { note: config.disabled_app!.token! });
    expect(disabled.message).toMatch(/GET \/dishes\/104 carries disabled_app's token in data\.note$/);
  });

  test('SEC-02: a password hash in a value, a field named like a secret; an empty one passes', async () => {
    const hash = `$2b$12$${'a'.repeat(53)}`;
    const r = await inRecord('SEC-02', 'GET /orders', 'app', { note: hash });
    expect(r.message).toBe(
      "records should carry no credential material (judgement: named by the field's name or a password-hash value; what it holds is not shown): GET /orders data[].note: a password hash",
    );
    expect(r.fingerprints).toEqual(['GET /orders data[].note']);
    const named = await inRecord('SEC-02', 'GET /dishes', 'other_app', { client_secret: 'x' });
    expect(named.message).toMatch(
      /: GET \/dishes \(other_app\) data\[\]\.client_secret: a field named like credential material$/,
    );
    const empty = await inRecord('SEC-02', 'GET /seats', 'app', { api_key: '', token_count: 3 });
    expect(empty.status).toBe('passed');
  });
});

describe('list against detail (CONS-01/02/05): what differs, what is only latitude, what cannot be compared', () => {
  const detail = (line: string) => (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line;
  const record = (change: (d: Record<string, unknown>) => unknown) => (json: unknown) => {
    const j = json as { data: Record<string, unknown> };
    return { ...j, data: change(j.data) };
  };

  test('CONS-01: a detail with no record and one with a malformed id are noted, not failed', async () => {
    const none = await replayChanged(
      'CONS-01',
      detail('GET /seats/12'),
      record(() => null),
    );
    expect(none.status).toBe('passed');
    expect(none.notes).toContain('not compared, 1: the detail answers no record (see SEAT-02): /seats/12');
    const malformed = await replayChanged(
      'CONS-01',
      detail('GET /dishes/102'),
      record((d) => ({ ...d, id: 'x' })),
    );
    expect(malformed.notes).toContain("not compared, 1: the detail's id is malformed (see DISH-02): /dishes/102");
  });

  test('CONS-03: a number as a numeric string is latitude, noted; two fields differing are one finding with two keys', async () => {
    const latitude = await replayChanged(
      'CONS-03',
      detail('GET /seats/11'),
      record((d) => ({ ...d, status: String(d.status) })),
    );
    expect(latitude.status).toBe('passed');
    expect(latitude.notes.join('\n')).toMatch(
      /^number vs numeric string, both allowed \(issue 2 latitude\): seat 11: /m,
    );
    const two = await replayChanged(
      'CONS-03',
      detail('GET /seats/13'),
      record((d) => ({ ...d, table_number: 'T9', remark: 'moved' })),
    );
    expect(two.status).toBe('failed');
    expect(two.message).toMatch(/^1 of 3 seats differ between GET \/seats and GET \/seats\/:id: seat 13: /);
    expect(two.fingerprints).toEqual(['seat:13:remark', 'seat:13:table_number']);
  });

  test("CONS-05: a dish's user_id, and one that is not an int noted", async () => {
    const list = (change: (rs: Array<Record<string, unknown>>) => unknown) => (json: unknown) => {
      const j = json as { data: Array<Record<string, unknown>> };
      return { ...j, data: change(j.data) };
    };
    const r = await replayChanged(
      'CONS-05',
      detail('GET /dishes'),
      list((rs) => rs.map((d, i) => (i === 1 ? { ...d, user_id: 2 } : d))),
    );
    expect(r.message).toMatch(
      /^1 of 20 records do not carry the merchant's id \(GET \/merchant id is 1\): dish \d+ has user_id 2$/,
    );
    const skipped = await replayChanged(
      'CONS-05',
      detail('GET /seats'),
      list((rs) => rs.map((d, i) => (i === 0 ? { ...d, user_id: '1' } : d))),
    );
    expect(skipped.status).toBe('passed');
    expect(skipped.notes).toContain('not compared, 1: user_id is not an int (see SEAT-01, SEAT-02, ORD-01): seat 11');
  });
});

describe('RO-01: what the GET after the unsafe methods can show', () => {
  /**
   * The nth recorded GET of a path with app's token (1: before the unsafe methods, 2: asked again before them
   * (RO-02's), 3: after the round without a token, 4: after the round with each application's token); other_app's
   * GETs of the same path are not counted.
   */
  const nth = (line: string, n: number) => {
    const rec = recordingsOf('RO-01').pass!;
    const token = issuedToken(rec.exchanges, rec.config.app.key);
    let seen = 0;
    return (x: Parameters<typeof requestOf>[0]) =>
      requestOf(x).line === line && requestOf(x).token === token && ++seen === n;
  };
  const lead =
    'after POST, PUT, PATCH and DELETE to every data endpoint, expected the same data through GET as before, got: ';
  const tail = ' (the comparison assumes no other client changes the merchant during the run)';
  const tokened = "with the applications' tokens: ";

  test('a list with records gone, changed and new; a record with a field changed; a failure after', async () => {
    const rec = recordingsOf('RO-01').pass!;
    let exchanges = withAnswers(rec.exchanges, nth('GET /seats', 4), (json) => {
      const j = json as { data: Array<Record<string, unknown>> };
      const [first, , ...rest] = j.data;
      return { ...j, data: [{ ...first, remark: 'moved' }, ...rest, { id: 99 }] };
    });
    exchanges = withAnswers(exchanges, nth('GET /merchant', 4), (json) => {
      const j = json as { data: Record<string, unknown> };
      return { ...j, data: { ...j.data, name: 'Renamed' } };
    });
    exchanges = withAnswers(exchanges, nth('GET /orders', 4), () => ({ status: 'ERROR', code: 500 }), 500);
    const r = await replay(check('RO-01'), rec.config, exchanges);
    expect(r.message).toBe(
      `${lead}${tokened}GET /merchant: fields changed: name "Golden Dragon 金龙酒家" → "Renamed" | ${tokened}GET /seats: record 11 changed: remark "Window, 4 seats" → "moved"; record 12 is gone; record 99 is new | ${tokened}GET /orders answered SUCCESS before and HTTP 500, code 500, status "ERROR" after${tail}`,
    );
  });

  test('a GET that failed before is noted, not compared', async () => {
    const r = await replayChanged('RO-01', nth('GET /dishes/101', 1), () => ({ status: 'ERROR', code: 500 }), 500);
    expect(r.status).toBe('passed');
    expect(r.notes.some((n) => n.startsWith('GET /dishes/101 did not succeed before the unsafe requests ('))).toBe(
      true,
    );
  });
});

describe('the shared judgements (core/model/assertions.ts): how an answer is described, what is a refusal', () => {
  const rec = (id: string) => recordingsOf(id).pass!;
  const sole = (id: string, line: string, token: boolean) => (x: Parameters<typeof requestOf>[0]) =>
    requestOf(x).line === line && (requestOf(x).token !== undefined) === token;
  const answered = (id: string, chosen: Parameters<typeof withBodies>[1], status: number, body: string, headers = {}) =>
    replay(
      check(id),
      rec(id).config,
      withBodies(rec(id).exchanges, chosen, () => body, status).map((x) =>
        chosen(x) && x.response
          ? { ...x, response: { ...x.response, headers: { ...x.response.headers, ...headers } } }
          : x,
      ),
    );

  test('a redirect names where it pointed; JSON that is not an object says so', async () => {
    const moved = await answered('ERR-01', sole('ERR-01', 'GET /conformance-unknown-interface', true), 302, '', {
      location: '/login',
    });
    expect(moved.message).toContain('got HTTP 302 (a redirect to /login, not followed) with a body that is not JSON');
    const list = await answered('ERR-01', sole('ERR-01', 'GET /conformance-unknown-interface', true), 404, '[1]');
    expect(list.message).toContain('got HTTP 404 with JSON that is not an object ([1])');
  });

  test('a refusal is HTTP 401/403 whatever the body, or the error envelope over HTTP 200 (AUTH-05)', async () => {
    const html = await answered('AUTH-05', sole('AUTH-05', 'GET /seats', true), 401, '<html>login</html>');
    // Both applications' GET /seats are answered so (each with its own token): both are refusals.
    expect(html.message).toBe(
      'with the token from /auth, expected the data, got a refusal: GET /seats: HTTP 401 with a body that is not JSON ("<html>login</html>"); GET /seats with other_app\'s token: HTTP 401 with a body that is not JSON ("<html>login</html>")',
    );
    const forbidden = await answered('AUTH-05', sole('AUTH-05', 'GET /orders', true), 403, '');
    expect(forbidden.fingerprints).toEqual(['GET /orders', 'other_app:GET /orders']);
    const envelope = await answered(
      'AUTH-05',
      sole('AUTH-05', 'GET /merchant', true),
      200,
      '{"status":"ERROR","code":401}',
    );
    expect(envelope.message).toBe(
      'with the token from /auth, expected the data, got a refusal: GET /merchant: HTTP 200, code 401, status "ERROR"; GET /merchant with other_app\'s token: HTTP 200, code 401, status "ERROR"',
    );
    const broken = await answered(
      'AUTH-05',
      sole('AUTH-05', 'GET /dishes', true),
      200,
      '{"status":"success","code":"200","data":[]}',
    );
    expect(broken.status, 'a malformed success is no refusal (ENV-01 judges it)').toBe('passed');
  });

  test("a success expected and a refusal found: AUTH-01's wording, and a shape check blocked naming AUTH-05", async () => {
    const auth = await answered('AUTH-01', starting('GET /auth'), 401, '{"status":"ERROR","code":401}');
    expect(auth.message).toBe(
      'GET /auth with a valid key pair: expected status "SUCCESS" and code 200, got HTTP 401, code 401, status "ERROR"',
    );
    const token = issuedToken(rec('DISH-01').exchanges, rec('DISH-01').config.app.key);
    const blocked = await answered(
      'DISH-01',
      (x) => requestOf(x).line === 'GET /dishes' && requestOf(x).token === token,
      401,
      '{"status":"ERROR","code":401}',
    );
    expect(blocked.status).not.toBe('passed');
    expect(blocked.message).toBe(
      'blocked: GET /dishes was refused (HTTP 401, code 401, status "ERROR"), so its data could not be judged (AUTH-05 reports the refusal)',
    );
  });
});
