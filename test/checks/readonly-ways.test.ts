/**
 * RO-01 and INFO-RO-METHODS: each way an unsafe request can change what GET answers, and each way the unsafe
 * requests are answered, from the recorded pass with the answers under test changed (test/checks/altered.ts).
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { dataChanges } from '../../suites/readonly.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

/** app's token in the RO-01 recording: the one its /auth issued for app's key pair. */
const appToken = () => {
  const rec = recordingsOf('RO-01').pass!;
  return issuedToken(rec.exchanges, rec.config.app.key);
};

/**
 * The nth recorded exchange of a request line with app's token (1: the GET before the unsafe requests, 2: the same
 * GET asked again before them (RO-02's), 3: the one after the round without a token: AFTER_NONE, 4: the one after
 * the round with each application's token: AFTER). other_app's GETs of the same line are not counted.
 */
const nth = (line: string, n: number) => {
  const token = appToken();
  let seen = 0;
  return (x: RecordedExchange): boolean => requestOf(x).line === line && requestOf(x).token === token && ++seen === n;
};

/** The GET after the round of unsafe requests without a token: the third of its request line. */
const AFTER_NONE = 3;
/** The GET after the round of unsafe requests with each application's token: the fourth of its request line. */
const AFTER = 4;

type Envelope = { status: string; code: number; data: unknown };
const dataOf = (json: unknown) => (json as Envelope).data;

async function roWith(changes: Array<[line: string, n: number, change: (json: unknown) => unknown, status?: number]>) {
  const rec = recordingsOf('RO-01').pass!;
  let exchanges: RecordedExchange[] = rec.exchanges;
  for (const [line, n, change, status] of changes) exchanges = withAnswers(exchanges, nth(line, n), change, status);
  return replay(check('RO-01'), rec.config, exchanges);
}

const failed = (problems: string) =>
  `after POST, PUT, PATCH and DELETE to every data endpoint, expected the same data through GET as before, got: ${problems} (the comparison assumes no other client changes the merchant during the run)`;
const TOKENED = "with the applications' tokens: ";
const NONE = 'without a token: ';

describe('dataChanges: what differs between the data before and after', () => {
  test('the same data: nothing', () => {
    expect(dataChanges([{ id: 1, a: 1 }], [{ id: 1, a: 1 }])).toEqual([]);
    expect(dataChanges({ a: 1 }, { a: 1 })).toEqual([]);
    // Equal values of any kind, and equal lists of records not shared as one tree.
    for (const v of [null, 5, 'x', true]) expect(dataChanges(v, v)).toEqual([]);
    expect(dataChanges([{ id: 1, a: [1] }], [{ id: 1, a: [1] }])).toEqual([]);
  });

  test('lists by id, whatever their order: gone, changed field by field, new', () => {
    expect(
      dataChanges(
        [
          { id: 1, a: 1, b: 'x' },
          { id: 2, a: 2 },
          { id: 3, a: 3 },
        ],
        [
          { id: 3, a: 3 },
          { id: 2, a: 5, b: 'y' },
          { id: '4', a: 4 },
        ],
      ),
    ).toEqual(['record 1 is gone', 'record 2 changed: a 2 → 5, b nothing → "y"', 'record "4" is new']);
  });

  test('list items without an id are paired by position; items that are not records are shown whole', () => {
    expect(dataChanges([1, { a: 1 }, 'x'], [1, { a: 2 }])).toEqual(['record #1 changed: a 1 → 2', 'record #2 is gone']);
    expect(dataChanges([{ id: 1 }], [7])).toEqual(['record 1 is gone', 'record #0 is new']);
    expect(dataChanges([{ id: null }], [{ id: null, a: 1 }])).toEqual(['record null changed: a nothing → 1']);
    expect(dataChanges(['a', 'b'], ['a', 'c'])).toEqual(['record #1 changed: "b" → "c"']);
    expect(dataChanges([{ a: 1 }], [[1]])).toEqual(['record #0 changed: {"a":1} → [1]']);
  });

  test('a record: each field that changed, in one change', () => {
    expect(dataChanges({ id: 1, a: 1, b: 2 }, { id: 1, a: 3, c: 4 })).toEqual([
      'fields changed: a 1 → 3, b 2 → nothing, c nothing → 4',
    ]);
  });

  test('a list that became a record, a record that became a list, or anything else: the data, before and after', () => {
    expect(dataChanges([{ id: 1 }], { id: 1 })).toEqual(['data [{"id":1}] → {"id":1}']);
    expect(dataChanges({ id: 1 }, [{ id: 1 }])).toEqual(['data {"id":1} → [{"id":1}]']);
    expect(dataChanges(null, 0)).toEqual(['data null → 0']);
  });
});

describe('RO-01: each way the data can change after the unsafe requests', () => {
  test('a list with records gone, changed and new, a merchant with changed fields, a list that became a record', async () => {
    const asList = (j: unknown) => ({ ...(j as object), data: [dataOf(j)] });
    const r = await roWith([
      [
        'GET /dishes',
        AFTER,
        (j) => {
          const [first, second, ...rest] = dataOf(j) as Array<Record<string, unknown>>;
          expect(first).toMatchObject({ id: 101 });
          expect(second).toMatchObject({ id: 102, price: 30, stock: 20 });
          return { ...(j as object), data: [{ ...second, price: 31, stock: 19 }, ...rest, { ...second, id: 105 }] };
        },
      ],
      [
        'GET /merchant',
        AFTER,
        (j) => ({ ...(j as object), data: { ...(dataOf(j) as object), name: 'X', phone: '1' } }),
      ],
      // Changed by the round without a token, and still so after the round with the tokens: blamed on the first.
      ['GET /seats/11', AFTER_NONE, asList],
      ['GET /seats/11', AFTER, asList],
    ]);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      /^after POST, PUT, PATCH and DELETE to every data endpoint, expected the same data through GET as before, got: with the applications' tokens: GET \/merchant: fields changed: name "Golden Dragon 金龙酒家" → "X", phone null → "1" \| with the applications' tokens: GET \/dishes: record 101 is gone; record 102 changed: price 30 → 31, stock 20 → 19; record 105 is new \| without a token: GET \/seats\/11: data \{"id":11,"table_number":"1","remark":"Window, 4 seats","stat… → \[\{"id":11,"table_number":"1","remark":"Window, 4 seats","sta… \(the comparison/,
    );
    // Each change named with the round that made it.
    expect(r.fingerprints).toEqual(['/dishes:with a token', '/merchant:with a token', '/seats/11:without a token']);
  });

  test('more than five changes in one answer: the first five, and how many more', async () => {
    const r = await roWith([
      [
        'GET /seats',
        AFTER,
        (j) => ({
          ...(j as object),
          data: [...(dataOf(j) as unknown[]), ...[901, 902, 903, 904, 905, 906, 907].map((id) => ({ id }))],
        }),
      ],
    ]);
    expect(r.message).toBe(
      failed(
        `${TOKENED}GET /seats: record 901 is new; record 902 is new; record 903 is new; record 904 is new; record 905 is new and 2 more`,
      ),
    );
    const five = await roWith([
      [
        'GET /seats',
        AFTER,
        (j) => ({
          ...(j as object),
          data: [...(dataOf(j) as unknown[]), ...[901, 902, 903, 904, 905].map((id) => ({ id }))],
        }),
      ],
    ]);
    expect(five.message).toBe(
      failed(
        `${TOKENED}GET /seats: record 901 is new; record 902 is new; record 903 is new; record 904 is new; record 905 is new`,
      ),
    );
  });

  test('a GET that succeeded before and fails after', async () => {
    const gone = () => ({ status: 'ERROR', code: 404, msg: 'gone' });
    const r = await roWith([['GET /dishes/101', AFTER, gone, 404]]);
    expect(r.message).toBe(
      failed(`${TOKENED}GET /dishes/101 answered SUCCESS before and HTTP 404, code 404, status "ERROR" after`),
    );
    // Gone after the round without a token already: that round is blamed.
    const none = await roWith([
      ['GET /dishes/101', AFTER_NONE, gone, 404],
      ['GET /dishes/101', AFTER, gone, 404],
    ]);
    expect(none.message).toBe(
      failed(`${NONE}GET /dishes/101 answered SUCCESS before and HTTP 404, code 404, status "ERROR" after`),
    );
  });

  test("other_app's reads are compared too, named with its token", async () => {
    const rec = recordingsOf('RO-01').pass!;
    const other = issuedToken(rec.exchanges, rec.config.other_app!.key);
    let seen = 0;
    const exchanges = withAnswers(
      rec.exchanges,
      (x) => requestOf(x).line === 'GET /dishes/201' && requestOf(x).token === other && ++seen === AFTER,
      () => ({ status: 'ERROR', code: 404, msg: 'gone' }),
      404,
    );
    const r = await replay(check('RO-01'), rec.config, exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      failed(
        `${TOKENED}GET /dishes/201 with other_app's token answered SUCCESS before and HTTP 404, code 404, status "ERROR" after`,
      ),
    );
    expect(r.fingerprints).toEqual(['other_app:/dishes/201:with a token']);
  });

  test('a GET that did not succeed before is not compared, and said', async () => {
    const r = await roWith([
      ['GET /orders', 1, () => ({ status: 'ERROR', code: 500 }), 500],
      ['GET /orders', AFTER_NONE, (j) => ({ ...(j as object), data: [] })],
      ['GET /orders', AFTER, (j) => ({ ...(j as object), data: [] })],
    ]);
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      'GET /orders did not succeed before the unsafe requests (answered status "ERROR", code 500 (HTTP 500)); not compared',
      // The 80 unsafe requests' refusals are kept beside the first 50 exchanges (the recorded pass says so too).
      'evidence: 100 of 130 exchanges kept (the first 50, then those without a 2xx answer)',
    ]);
  });
});

describe('INFO-RO-METHODS: what the unsafe requests got, grouped', () => {
  const rec = () => recordingsOf('INFO-RO-METHODS').pass!;

  test('the same answer to all of them', async () => {
    const r = await replay(check('INFO-RO-METHODS'), rec().config, rec().exchanges);
    expect(r.status).toBe('passed');
    // Each of the 8 paths without a token (32), then each application's 6 paths with its own token (48).
    expect(r.observation).toMatch(
      /^all 80 requests \(POST, PUT, PATCH and DELETE to \/merchant, \/dishes, \/dishes\/101, \/seats, \/seats\/11, \/orders, \/dishes\/201, \/seats\/21\): /,
    );
  });

  test('other answers named by method and path, and by the token sent; no response, with why', async () => {
    const token = issuedToken(rec().exchanges, rec().config.app.key);
    const exchanges = withAnswers(
      rec().exchanges,
      (x) => requestOf(x).line === 'POST /dishes' && requestOf(x).token === undefined,
      () => ({ status: 'ERROR', code: 405 }),
      405,
    ).map((x) =>
      requestOf(x).line === 'DELETE /orders' && requestOf(x).token === token
        ? { request: x.request, error: 'connection reset' }
        : x,
    );
    const r = await replay(check('INFO-RO-METHODS'), rec().config, exchanges);
    expect(r.status).toBe('passed');
    const parts = r.observation!.split('; ');
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(
      /^POST \/merchant without a token, PUT \/merchant without a token, PATCH \/merchant without a token, DELETE \/merchant without a token, PUT \/dishes without a token and 73 more: /,
    );
    expect(parts[1]).toBe('POST /dishes without a token: code 405 over HTTP 405, status "ERROR"');
    expect(parts[2]).toMatch(
      /^DELETE \/orders with app's token: no response \(DELETE https?:\/\/127\.0\.0\.1:\d+\/open\/orders: connection reset\)$/,
    );
  });
});
