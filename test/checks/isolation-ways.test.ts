/**
 * ISO-01..04: each way one merchant's data can reach the other's token, each way the two merchants can be told apart
 * (or not), and what is not asked or not looked into, from a recorded pass with the answers under test changed
 * (test/checks/altered.ts). A is app's merchant (user_id 1, MCH20240001), B is other_app's (user_id 2, MCH20240002).
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { runChecks } from '../../core/engine/engine.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import type { Config } from '../../core/config/config.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers, withBodies } from './altered.js';

type Who = 'app' | 'other_app';
type Rec = Record<string, unknown>;
type Change = [line: string, who: Who, change: (data: unknown) => unknown];

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const pass = (id: string) => recordingsOf(id).pass!;
const tokenOf = (id: string, who: Who) => issuedToken(pass(id).exchanges, pass(id).config[who]!.key);
/** The recorded request of one line ("GET /dishes") with one application's token ("GET /auth…" by its key). */
const asked = (id: string, line: string, who: Who) => {
  if (line === 'GET /auth') {
    const key = pass(id).config[who]!.key;
    return (x: RecordedExchange) => new URL(x.request.url).searchParams.get('key') === key;
  }
  const token = tokenOf(id, who);
  return (x: RecordedExchange) => requestOf(x).line === line && requestOf(x).token === token;
};

/** The pass recording of a check with the data of the chosen answers changed. */
function changed(id: string, changes: Change[]): RecordedExchange[] {
  let exchanges: RecordedExchange[] = pass(id).exchanges;
  for (const [line, who, change] of changes)
    exchanges = withAnswers(exchanges, asked(id, line, who), (json) => ({
      ...(json as object),
      data: change((json as { data: unknown }).data),
    }));
  return exchanges;
}
const iso = (id: string, changes: Change[], config?: Partial<Config>) =>
  replay(check(id), { ...pass(id).config, ...config }, changed(id, changes));

/** B's records as the pass recordings hold them. */
const B_DISH_201 = {
  id: 201,
  name: 'Lotus root salad',
  price: 22.5,
  stock: 20,
  unit: 'bowl',
  category_id: 7,
  user_id: 2,
  created_at: '2024-03-01 12:30',
  updated_at: '2024-03-02 18:05',
};
const B_SEAT_21 = {
  id: 21,
  table_number: '5',
  remark: 'Terrace',
  status: 0,
  merchant_id: 'MCH20240002',
  user_id: 2,
  created_at: '2024-01-10 09:00',
  updated_at: '2024-01-10 09:00',
};
const without = (r: Rec, ...keys: string[]): Rec =>
  Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k)));
const append =
  (...items: unknown[]) =>
  (data: unknown) => [...(data as unknown[]), ...items];
/** The /auth answer's merchant changed. */
const authMerchant = (change: (m: Rec) => unknown) => (data: unknown) => ({
  ...(data as Rec),
  merchant: change((data as { merchant: Rec }).merchant),
});

const ISO_02_FAILED = (n: number, findings: string) =>
  `The responses of merchant A (app) carry data of merchant B (other_app: user_id 2, merchant_id "MCH20240002") in ${n} place${n > 1 ? 's' : ''}: ${findings}`;

describe('ISO-02/04: what in my responses is theirs', () => {
  test('a listed record with their fields but no owner mark is theirs; mine that shares only an id or a field is not', async () => {
    const r = await iso('ISO-02', [
      [
        'GET /dishes',
        'app',
        append(
          without(B_DISH_201, 'user_id'),
          // Their id 202 (Café au lait, 18) with my own name: ids may be per merchant.
          { ...B_DISH_201, id: 202, name: 'Own', price: 18, unit: null, category_id: 8, user_id: 1 },
        ),
      ],
      // Their seat, its table number as a number: the same record (5 and "5" alike).
      ['GET /seats', 'app', append({ ...without(B_SEAT_21, 'user_id', 'merchant_id'), table_number: 5 })],
    ]);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      ISO_02_FAILED(
        2,
        "GET /dishes with merchant A's token lists merchant B's dish 201 (the same record as theirs); GET /seats with merchant A's token lists merchant B's seat 21 (the same record as theirs)",
      ),
    );
    expect(r.fingerprints).toEqual(['GET /dishes:dish:201', 'GET /seats:seat:21']);
  });

  test('a record of mine that shares no spec field with theirs, or that carries only its id, is not theirs', async () => {
    const r = await iso('ISO-02', [
      ['GET /dishes', 'app', append({ id: 201 }, { id: 202, colour: 'red' })],
      ['GET /seats', 'app', append({ id: 21, table_number: '9' })],
    ]);
    expect(r.status).toBe('passed');
  });

  test('their list holding a record of mine (the other direction leaks) does not make mine theirs', async () => {
    const mine101: Change = [
      'GET /dishes',
      'other_app',
      append({
        id: 101,
        name: '麻婆豆腐 Mapo Tofu',
        price: 38.5,
        stock: 20,
        unit: 'plate',
        category_id: 1,
        user_id: 1,
        created_at: '2024-03-01 12:30',
        updated_at: '2024-03-02 18:05',
      }),
    ];
    const r = await iso('ISO-02', [mine101]);
    expect(r.status).toBe('passed');
    // Their own records are still theirs: 201 without its owner mark in my list is found.
    const leak = await iso('ISO-02', [mine101, ['GET /dishes', 'app', append(without(B_DISH_201, 'user_id'))]]);
    expect(leak.message).toBe(
      ISO_02_FAILED(1, "GET /dishes with merchant A's token lists merchant B's dish 201 (the same record as theirs)"),
    );
  });

  test('orders: one at their seat, one that is theirs (its seat and dishes not said again), one embedding their dish', async () => {
    const r = await iso('ISO-02', [
      [
        'GET /orders',
        'app',
        (data) => {
          const [o1, o2, o3] = data as Rec[];
          expect([o1!.id, o2!.id, o3!.id]).toEqual([5001, 5002, 5003]);
          return [
            { ...o1, seat: B_SEAT_21 },
            { ...o2, merchant_id: 'MCH20240002', seat: B_SEAT_21, dishes: [B_DISH_201] },
            { ...o3, seat: 'none', dishes: [null, 7, ...(o3!.dishes as unknown[]), B_DISH_201] },
            // Their seat and dish without owner marks: the same records as theirs.
            {
              ...o1,
              id: 5004,
              seat: without(B_SEAT_21, 'user_id', 'merchant_id'),
              dishes: [without(B_DISH_201, 'user_id')],
            },
          ];
        },
      ],
    ]);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      ISO_02_FAILED(
        5,
        "GET /orders with merchant A's token: order 5001 sits at merchant B's seat 21 (user_id 2); GET /orders with merchant A's token lists merchant B's order 5002 (merchant_id \"MCH20240002\"); GET /orders with merchant A's token: order 5003 embeds merchant B's dish 201 (user_id 2); GET /orders with merchant A's token: order 5004 sits at merchant B's seat 21 (the same record as theirs); GET /orders with merchant A's token: order 5004 embeds merchant B's dish 201 (the same record as theirs)",
      ),
    );
    expect(r.fingerprints).toEqual([
      'GET /orders:order:5001:seat:21',
      'GET /orders:order:5002',
      'GET /orders:order:5003:dish:201',
      'GET /orders:order:5004:dish:201',
      'GET /orders:order:5004:seat:21',
    ]);
  });

  test('an order is theirs by its order_number under their id; the first of their records of an id counts', async () => {
    const mine = (data: unknown) => {
      const [o1, ...rest] = data as Rec[];
      return [{ ...o1, id: 6001, order_number: 'ON20240307001' }, ...rest];
    };
    const theirs = await iso('ISO-02', [['GET /orders', 'app', mine]]);
    expect(theirs.message).toBe(
      ISO_02_FAILED(
        1,
        "GET /orders with merchant A's token lists merchant B's order 6001 (the same order_number as theirs)",
      ),
    );
    // Their list names 6001 twice, first with another number: ids are paired as theirRecords pairs them, first one.
    const first = await iso('ISO-02', [
      ['GET /orders', 'app', mine],
      [
        'GET /orders',
        'other_app',
        (data) => {
          const [o] = data as Rec[];
          return [{ ...o, order_number: 'ON-OTHER' }, o];
        },
      ],
    ]);
    expect(first.status).toBe('passed');
    // My own 6001 under another number: per-merchant ids.
    const own = await iso('ISO-02', [
      [
        'GET /orders',
        'app',
        (data) => {
          const [o1, ...rest] = data as Rec[];
          return [{ ...o1, id: 6001 }, ...rest];
        },
      ],
    ]);
    expect(own.status).toBe('passed');
  });

  test('their order list longer than mine, or no list: my orders are still looked up, or theirs noted', async () => {
    const mine: Change = [
      'GET /orders',
      'app',
      (data) => {
        const [o1, ...rest] = data as Rec[];
        return [{ ...o1, id: 6001, order_number: 'ON20240307001' }, ...rest];
      },
    ];
    const more: Change = [
      'GET /orders',
      'other_app',
      (data) => {
        const [o] = data as Rec[];
        return [o, ...[6002, 6003, 6004].map((id) => ({ ...o, id, order_number: `ON${id}` }))];
      },
    ];
    const r = await iso('ISO-02', [mine, more]);
    expect(r.message).toBe(
      ISO_02_FAILED(
        1,
        "GET /orders with merchant A's token lists merchant B's order 6001 (the same order_number as theirs)",
      ),
    );
    const none = await iso('ISO-02', [mine, ['GET /orders', 'other_app', () => null]]);
    expect(none.status).toBe('passed');
    expect(none.notes).toEqual(["GET /orders with merchant B's token not used: GET /orders carried no array"]);
  });

  test('orders of mine in their list (by merchant_id, by seat, by dish) are not theirs to find in mine', async () => {
    const r = await iso('ISO-02', [
      [
        'GET /orders',
        'other_app',
        (theirs) => {
          const mine = pass('ISO-02').exchanges.find(asked('ISO-02', 'GET /orders', 'app'))!;
          const [o1, o2, o3] = (JSON.parse(mine.response!.body) as { data: Rec[] }).data;
          // 5002's merchant_id is "", its seat is mine (its dishes left out); 5003 without merchant_id or seat, a dish
          // of nobody's before one of mine.
          expect(o2!.merchant_id).toBe('');
          return [
            ...(theirs as Rec[]),
            o1,
            { ...o2, dishes: [] },
            { ...o3, merchant_id: '', seat: null, dishes: [null, 7, { id: 1 }, ...(o3!.dishes as unknown[])] },
          ];
        },
      ],
    ]);
    expect(r.status).toBe('passed');
  });

  test('a detail of mine that answers their record', async () => {
    const r = await iso('ISO-02', [
      ['GET /dishes/102', 'app', () => ({ ...B_DISH_201, id: 102 })],
      ['GET /seats/12', 'app', () => ({ ...B_SEAT_21, id: 12, user_id: 1 })],
    ]);
    expect(r.message).toBe(
      ISO_02_FAILED(
        2,
        'GET /dishes/:id with merchant A\'s token answered a dish of merchant B (user_id 2); GET /seats/:id with merchant A\'s token answered a seat of merchant B (merchant_id "MCH20240002")',
      ),
    );
    expect(r.fingerprints).toEqual(['GET /dishes/:id:dish:102', 'GET /seats/:id:seat:12']);
  });

  test('answers that are not lists or records are noted, not used; with nothing to look into, blocked', async () => {
    const r = await iso('ISO-02', [
      ['GET /dishes', 'other_app', () => null],
      ['GET /seats', 'app', () => ({})],
      ['GET /merchant', 'app', () => []],
    ]);
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "GET /dishes with merchant B's token not used: GET /dishes carried no array",
      "GET /merchant with merchant A's token not used: GET /merchant carried no merchant object",
      "GET /seats with merchant A's token not used: GET /seats carried no array",
    ]);
    const nothing = await iso('ISO-02', [
      ['GET /merchant', 'app', () => null],
      ['GET /dishes', 'app', () => null],
      ['GET /seats', 'app', () => null],
      ['GET /orders', 'app', () => null],
    ]);
    expect(nothing.status).toBe('skipped');
    expect(nothing.message).toBe('blocked: no response of merchant A to look into');
  });

  test('each answer looked into counts: /merchant and one list, or /orders and /merchant, are enough', async () => {
    // Their seat in my seat list: the finding shows the lists were looked into, and the check was not blocked.
    const leak: Change = ['GET /seats', 'app', append(B_SEAT_21)];
    const seatFinding = ISO_02_FAILED(1, "GET /seats with merchant A's token lists merchant B's seat 21 (user_id 2)");
    const merchantAndSeats = await iso('ISO-02', [
      ['GET /dishes', 'app', () => null],
      ['GET /orders', 'app', () => null],
      leak,
    ]);
    expect(merchantAndSeats.message).toBe(seatFinding);
    const seatsAndOrders = await iso('ISO-02', [
      ['GET /merchant', 'app', () => null],
      ['GET /dishes', 'app', () => null],
      leak,
    ]);
    expect(seatsAndOrders.message).toBe(seatFinding);
    const merchantAndOrders = await iso('ISO-02', [
      ['GET /dishes', 'app', () => null],
      ['GET /seats', 'app', () => null],
    ]);
    expect(merchantAndOrders.status).toBe('passed');
    expect(merchantAndOrders.notes).toHaveLength(2);
  });

  test('no response to a list or to /merchant: the check could not finish, not a note', async () => {
    const dropped = (line: string, who: Who) =>
      pass('ISO-02').exchanges.map((x) =>
        asked('ISO-02', line, who)(x) ? { request: x.request, error: 'connection reset' } : x,
      );
    for (const [line, who] of [
      ['GET /dishes', 'other_app'],
      ['GET /merchant', 'app'],
    ] as const) {
      const r = await replay(check('ISO-02'), pass('ISO-02').config, dropped(line, who));
      expect(r.status, line).toBe('incomplete');
      expect(r.message).toMatch(/^could not finish: GET https:\/\/127\.0\.0\.1:\d+\/open\/\w+: connection reset$/);
      expect(r.notes).toEqual([]);
    }
  });
});

describe('the two merchants told apart: /auth names who each application belongs to', () => {
  const sameMerchant = (id: unknown, merchantId: unknown) =>
    `/auth names the same merchant (id ${id}, merchant_id ${merchantId}) for app and for other_app, which is configured as an application of a second merchant: the server answers one application with the other's merchant, so nothing can be kept apart (§1). Judgement: the configuration is trusted; if both applications really belong to one merchant, configure other_app with an application of another merchant`;

  test("other_app's /auth naming app's merchant, by id or by merchant_id, fails every isolation check", async () => {
    for (const id of ['ISO-01', 'ISO-02', 'ISO-03', 'ISO-04']) {
      const byId = await iso(id, [['GET /auth', 'other_app', authMerchant((m) => ({ ...m, id: 1 }))]]);
      expect(byId.status, id).toBe('failed');
      expect(byId.message).toBe(
        id === 'ISO-01' || id === 'ISO-02' ? sameMerchant(1, '"MCH20240001"') : sameMerchant(1, '"MCH20240002"'),
      );
      expect(byId.fingerprints).toEqual(['tenants:same-merchant']);
    }
    const byMerchantId = await iso('ISO-02', [
      ['GET /auth', 'other_app', authMerchant((m) => ({ ...m, merchant_id: 'MCH20240001' }))],
    ]);
    expect(byMerchantId.message).toBe(sameMerchant(1, '"MCH20240001"'));
  });

  test('an empty merchant_id, or one that is not a string, names nobody: the ids tell the merchants apart', async () => {
    for (const merchantId of ['', 7]) {
      const r = await iso('ISO-02', [
        ['GET /auth', 'app', authMerchant((m) => ({ ...m, merchant_id: merchantId }))],
        ['GET /auth', 'other_app', authMerchant((m) => ({ ...m, merchant_id: merchantId }))],
      ]);
      expect(r.status, String(merchantId)).toBe('passed');
    }
    // Their merchant_id "": my order 5002, whose merchant_id is "", is not theirs.
    const empty = await iso('ISO-02', [['GET /auth', 'other_app', authMerchant((m) => ({ ...m, merchant_id: '' }))]]);
    expect(empty.status).toBe('passed');
  });

  test('a merchant without merchant_id, or without an id, marks nothing of mine as theirs', async () => {
    const noMerchantId = await iso('ISO-02', [
      ['GET /auth', 'other_app', authMerchant((m) => without(m, 'merchant_id'))],
      ['GET /merchant', 'app', (m) => without(m as Rec, 'merchant_id')],
    ]);
    expect(noMerchantId.status).toBe('passed');
    // No id of theirs (or a null one), and records of mine without user_id (or a null one): not theirs.
    for (const [theirId, myUserId] of [
      [undefined, undefined],
      [null, null],
    ] as const) {
      const r = await iso('ISO-02', [
        [
          'GET /auth',
          'other_app',
          authMerchant((m) => ({ ...without(m, 'id'), ...(theirId === null ? { id: null } : {}) })),
        ],
        [
          'GET /dishes',
          'app',
          (data) =>
            (data as Rec[]).map((d) => ({ ...without(d, 'user_id'), ...(myUserId === null ? { user_id: null } : {}) })),
        ],
      ]);
      expect(r.status, String(theirId)).toBe('passed');
    }
  });

  test("an /auth answer without the merchant: its application's /merchant says who it is", async () => {
    const r = await iso('ISO-04', [['GET /auth', 'other_app', (d) => without(d as Rec, 'merchant')]]);
    expect(r.status).toBe('passed');
    // What /merchant says is then who the application is: here, the other merchant.
    const same = await iso('ISO-04', [
      ['GET /auth', 'other_app', (d) => without(d as Rec, 'merchant')],
      ['GET /merchant', 'other_app', (m) => ({ ...(m as Rec), id: 1 })],
    ]);
    expect(same.status).toBe('failed');
    expect(same.message).toBe(sameMerchant(1, '"MCH20240002"'));
  });

  test("a recording without other_app's /auth (a capture with its token only): /merchant says who it is", async () => {
    const rec = pass('ISO-04');
    const token = tokenOf('ISO-04', 'other_app');
    const exchanges = rec.exchanges.filter((x) => !asked('ISO-04', 'GET /auth', 'other_app')(x));
    const { records } = await runChecks(
      rec.config,
      [check('ISO-04')],
      (r) => new RecordedSource(exchanges, rec.config.base_url, r, { tokens: { other_app: token } }),
    );
    expect(records[0]!.status).toBe('passed');
    expect(records[0]!.sampled).toContain('the recorded answers without GET /auth of other_app');
  });
});

describe('ISO-01/03: which of their ids are asked for, and each way one resolves', () => {
  const head = (path: string) => `GET ${path} with merchant A's token`;
  const failed = (n: number, of: number, findings: string) =>
    `${n} of the ${of} dish and seat ids of merchant B (other_app) asked for with the token of merchant A (app) resolved where they must not: ${findings}`;

  test('SUCCESS with their record (with or without its owner mark), SUCCESS with another record, an error that is not JSON', async () => {
    let exchanges = changed('ISO-01', []);
    const success = (data: unknown) => () => ({ status: 'SUCCESS', code: 200, data });
    exchanges = withAnswers(
      exchanges,
      asked('ISO-01', 'GET /dishes/201', 'app'),
      success(without(B_DISH_201, 'user_id')),
      200,
    );
    exchanges = withAnswers(exchanges, asked('ISO-01', 'GET /dishes/202', 'app'), success({ id: 999 }), 200);
    exchanges = withBodies(exchanges, asked('ISO-01', 'GET /seats/21', 'app'), () => 'nope');
    const r = await replay(check('ISO-01'), pass('ISO-01').config, exchanges);
    expect(r.status).toBe('failed');
    expect(r.message.startsWith('3 of the 3 dish and seat ids of merchant B (other_app)')).toBe(true);
    for (const finding of [
      `${head('/dishes/201')} answered merchant B's dish 201;`,
      `${head('/dishes/202')} answered SUCCESS (data {"id":999}) for merchant B's dish 202; expected an error with code 400 or 404`,
      `${head('/seats/21')} (merchant B's seat 21): expected an error with code 400 or 404, got HTTP 404 with a body that is not JSON ("nope")`,
    ])
      expect(r.message).toContain(finding);
    expect([...r.fingerprints!].sort()).toEqual(['dish:201', 'dish:202', 'seat:21']);
  });

  test('their ids that are ids of my own records are judged from my own detail of each, and said; their record leaked into my list is asked', async () => {
    const ownDish = { ...B_DISH_201, name: 'Own', user_id: 1 };
    const r = await iso('ISO-01', [
      ['GET /dishes', 'app', append(ownDish)],
      ['GET /seats', 'app', append(B_SEAT_21)],
    ]);
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "1 of merchant B's dish ids are also ids of merchant A's own dishes (per-merchant ids): judged from merchant A's own detail of each (it must be merchant A's record)",
    ]);
    // Asked: 202 and 21. A SUCCESS for 21 shows it was asked, and how many were.
    const resolved = await replay(
      check('ISO-01'),
      pass('ISO-01').config,
      withAnswers(
        changed('ISO-01', [
          ['GET /dishes', 'app', append(ownDish)],
          ['GET /seats', 'app', append(B_SEAT_21)],
        ]),
        asked('ISO-01', 'GET /seats/21', 'app'),
        () => ({ status: 'SUCCESS', code: 200, data: B_SEAT_21 }),
        200,
      ),
    );
    expect(resolved.message).toBe(failed(1, 3, `${head('/seats/21')} answered merchant B's seat 21 (user_id 2)`));
  });

  test('every id of theirs one of my own: nothing to ask for; my detail of each is judged, and it must not be theirs', async () => {
    const r = await iso('ISO-01', [
      [
        'GET /dishes',
        'app',
        append({ ...B_DISH_201, name: 'Own', user_id: 1 }, { ...B_DISH_201, id: 202, name: 'Own too', user_id: 1 }),
      ],
      ['GET /seats', 'app', append({ ...B_SEAT_21, remark: 'Mine', merchant_id: 'MCH20240001', user_id: 1 })],
    ]);
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "2 of merchant B's dish ids are also ids of merchant A's own dishes (per-merchant ids): judged from merchant A's own detail of each (it must be merchant A's record)",
      "1 of merchant B's seat ids are also ids of merchant A's own seats (per-merchant ids): judged from merchant A's own detail of each (it must be merchant A's record)",
    ]);
    // My detail of such an id that answers their record (their owner, not my own record) is the finding.
    const leaked = await replay(
      check('ISO-01'),
      pass('ISO-01').config,
      withAnswers(
        changed('ISO-01', [
          [
            'GET /dishes',
            'app',
            append({ ...B_DISH_201, name: 'Own', user_id: 1 }, { ...B_DISH_201, id: 202, name: 'Own too', user_id: 1 }),
          ],
          ['GET /seats', 'app', append({ ...B_SEAT_21, remark: 'Mine', merchant_id: 'MCH20240001', user_id: 1 })],
        ]),
        asked('ISO-01', 'GET /dishes/201', 'app'),
        () => ({ status: 'SUCCESS', code: 200, data: B_DISH_201 }),
        200,
      ),
    );
    expect(leaked.status).toBe('failed');
    expect(leaked.message).toContain(
      "GET /dishes/201 with merchant A's token answered merchant B's dish 201 (user_id 2), not merchant A's own dish of that id",
    );
    expect(leaked.fingerprints).toEqual(['dish:201']);
  });

  test('a list that is no list: noted; their ids still asked, or that resource left out', async () => {
    const resolves = (exchanges: RecordedExchange[]) =>
      withAnswers(
        exchanges,
        asked('ISO-01', 'GET /dishes/201', 'app'),
        () => ({ status: 'SUCCESS', code: 200, data: B_DISH_201 }),
        200,
      );
    // My dish list no list: their dish ids are all asked.
    const mine = await replay(
      check('ISO-01'),
      pass('ISO-01').config,
      resolves(changed('ISO-01', [['GET /dishes', 'app', () => null]])),
    );
    expect(mine.message).toBe(failed(1, 3, `${head('/dishes/201')} answered merchant B's dish 201 (user_id 2)`));
    expect(mine.notes).toEqual(["GET /dishes with merchant A's token not used: GET /dishes carried no array"]);
    // Their seat list no list: only their dishes are asked.
    const theirs = await replay(
      check('ISO-01'),
      pass('ISO-01').config,
      resolves(changed('ISO-01', [['GET /seats', 'other_app', () => ({ id: 21 })]])),
    );
    expect(theirs.message).toBe(failed(1, 2, `${head('/dishes/201')} answered merchant B's dish 201 (user_id 2)`));
    expect(theirs.notes).toEqual(["GET /seats with merchant B's token not used: GET /seats carried no array"]);
  });

  test('a seeded sample of their ids (max_details) is said', async () => {
    const r = await iso('ISO-01', [], { max_details: 1 });
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual(["asked for a seeded sample of 1 of merchant B's 2 dishes"]);
  });

  test('ISO-03: the same, the other way round', async () => {
    const r = await replay(
      check('ISO-03'),
      pass('ISO-03').config,
      withAnswers(
        pass('ISO-03').exchanges,
        asked('ISO-03', 'GET /seats/12', 'other_app'),
        () => ({ status: 'ERROR', code: 403 }),
        403,
      ),
    );
    expect(r.message).toBe(
      '1 of the 7 dish and seat ids of merchant A (app) asked for with the token of merchant B (other_app) resolved where they must not: GET /seats/12 with merchant B\'s token (merchant A\'s seat 12): expected an error with code 400 or 404, got HTTP 403, code 403, status "ERROR"',
    );
  });
});
