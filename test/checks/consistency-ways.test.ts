/**
 * The consistency checks (suites/consistency.ts), each way records can disagree and each thing that cannot be
 * compared: a recorded pass with answers changed (test/checks/altered.ts), as ways.test.ts does, for the branches
 * no mutant's recording takes (found by Stryker, docs/mutation.md).
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { Config } from '../../core/config/config.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { requestOf, withAnswers } from './altered.js';

type Rec = Record<string, unknown>;
type Chosen = (x: RecordedExchange) => boolean;

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const line =
  (l: string): Chosen =>
  (x) =>
    requestOf(x).line === l;
/** An answer's data changed (a copy: the recording is shared by the tests). */
const data =
  <T>(change: (d: T) => unknown) =>
  (json: unknown) => {
    const j = json as { data: T };
    return { ...j, data: change(structuredClone(j.data)) };
  };
/** The recording with each request `GET <path>` answered HTTP 500 with an error envelope. */
const unanswered = (xs: RecordedExchange[], ...paths: string[]): RecordedExchange[] =>
  paths.reduce((out, p) => withAnswers(out, line(`GET ${p}`), () => ({ status: 'ERROR', code: 500 }), 500), xs);

/**
 * Replays check `id` over a recording (its pass, or `from`'s) with the exchanges edited, at the recorded settings:
 * app's answers alone (#35: the checks judge other_app's too; an edit of `GET /dishes` would change both merchants'
 * answers, so these ways are app's, and other_app's are proven live by reference/mutants/other-merchant.ts), except
 * for CONS-09, whose ways below are other_app's as well.
 */
async function replayed(
  id: string,
  edit: (xs: RecordedExchange[]) => RecordedExchange[],
  { from = id, which = 'pass', config = {} }: { from?: string; which?: 'pass' | 'fail'; config?: Partial<Config> } = {},
) {
  const rec = recordingsOf(from)[which]!;
  const { other_app: _other, ...appOnly } = rec.config;
  return replay(check(id), { ...(id === 'CONS-09' ? rec.config : appOnly), ...config }, edit(rec.exchanges));
}

/**
 * The recording with the request `l` no longer in it (each application's: the recordings hold other_app's too): the
 * check that asks for it cannot finish.
 */
const without =
  (l: string) =>
  (xs: RecordedExchange[]): RecordedExchange[] => {
    const out = xs.filter((x) => !line(l)(x));
    expect(out.length).toBeLessThan(xs.length);
    return out;
  };

/**
 * The recording with one more request answered: a copy of the recorded `like` request (its token and headers)
 * for another path, answered `json` with `status`. For the detail of an id no recorded list named.
 */
function plus(xs: RecordedExchange[], like: string, path: string, json: unknown, status = 200): RecordedExchange[] {
  const model = xs.find(line(like))!;
  const url = new URL(model.request.url);
  // The API's base path (/open) kept: `like` names the request without it, as requestOf does.
  url.pathname = `${url.pathname.slice(0, -like.slice(like.indexOf(' ') + 1).length)}${path}`;
  return [
    ...xs,
    {
      ...model,
      request: { ...model.request, url: url.href },
      response: { ...model.response!, status, body: JSON.stringify(json) },
    },
  ];
}

describe('CONS-01: the detail answers the id asked for', () => {
  test('a sample of max_details is said, for each resource', async () => {
    const r = await replayed('CONS-01', (xs) => xs, { config: { max_details: 2 } });
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      'compared a seeded sample of 2 of 4 dishes (max_details, seed 12345), the same sample as the detail checks',
    );
    expect(r.notes).toContain(
      'compared a seeded sample of 2 of 3 seats (max_details, seed 12345), the same sample as the detail checks',
    );
  });

  test('a list that is not answered is noted and the other still judged; with neither, nothing to ask', async () => {
    const one = await replayed('CONS-01', (xs) =>
      withAnswers(
        unanswered(xs, '/dishes'),
        line('GET /seats/12'),
        data((d: Rec) => ({ ...d, id: 13 })),
      ),
    );
    expect(one.status).toBe('failed');
    expect(one.notes).toEqual(['/dishes: GET /dishes answered status "ERROR", code 500 (HTTP 500)']);
    expect(one.message).toBe(
      '1 of 3 details answer another id than the one asked for: GET /seats/12 answered seat 13 instead of seat 12',
    );
    const none = await replayed('CONS-01', (xs) => unanswered(xs, '/dishes', '/seats'));
    expect(none.status).toBe('skipped');
    expect(none.message).toBe('blocked: no dish or seat ids to ask for (see DISH-01, SEAT-01)');
  });

  test('a list the recording lacks: the check cannot finish, though a dish answered another id', async () => {
    const r = await replayed('CONS-01', (xs) =>
      withAnswers(
        without('GET /seats')(xs),
        line('GET /dishes/102'),
        data((d: Rec) => ({ ...d, id: 103 })),
      ),
    );
    expect(r.status).toBe('skipped');
    expect(r.message).toBe('not in the recording: GET /seats');
  });
});

describe('CONS-02/03: each listed record equals its detail', () => {
  const seats = (change: (s: Rec) => Rec) => data((ss: Rec[]) => ss.map(change));
  test('latitude and fields the spec does not list are noted once each, with how many more records', async () => {
    const r = await replayed('CONS-03', (xs) => {
      let out = withAnswers(
        xs,
        line('GET /seats'),
        seats((s) => (s.id === 13 ? s : { ...s, floor: 1, zone: 'a' })),
      );
      for (const id of [11, 12, 13])
        out = withAnswers(
          out,
          line(`GET /seats/${id}`),
          data((s: Rec) => ({ ...s, status: String(s.status), floor: 2, zone: 'b' })),
        );
      return out;
    });
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      'number vs numeric string, both allowed (issue 2 latitude): seat 11: GET /seats has status 0, GET /seats/11 has "0" (and 2 more records)',
      'fields the spec does not list are not compared: seat 11: floor, zone differ between GET /seats and GET /seats/11 (and 1 more record)',
    ]);
  });

  test('a detail with no record and one with another id are noted; two records differing fail', async () => {
    const r = await replayed('CONS-02', (xs) => {
      let out = withAnswers(
        xs,
        line('GET /dishes/101'),
        data(() => null),
      );
      out = withAnswers(
        out,
        line('GET /dishes/102'),
        data((d: Rec) => ({ ...d, id: 104 })),
      );
      out = withAnswers(
        out,
        line('GET /dishes/103'),
        data((d: Rec) => ({ ...d, price: 1 })),
      );
      return withAnswers(
        out,
        line('GET /dishes/104'),
        data((d: Rec) => ({ ...d, unit: 'x', stock: 0 })),
      );
    });
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual([
      'not compared, 1: the detail answers no record (see DISH-02): dish 101',
      'not compared, 1: the detail answers another id (see CONS-01): dish 102',
    ]);
    expect(r.message).toBe(
      '2 of 4 dishes differ between GET /dishes and GET /dishes/:id: dish 103: list has price 12.8, detail has 1; dish 104: list has stock 5, detail has 0; list has unit "half", detail has "x"',
    );
    expect(r.fingerprints).toEqual(['dish:103:price', 'dish:104:stock', 'dish:104:unit']);
  });
});

describe('CONS-04: no id twice in a list', () => {
  const list = (change: (rs: Rec[]) => Rec[]) => data(change);
  test('ids repeated in two lists fail, each said; records without an id-like id are not counted', async () => {
    const r = await replayed('CONS-04', (xs) => {
      let out = withAnswers(
        xs,
        line('GET /dishes'),
        list((ds) => [...ds, ds[0]!, { id: null }, { id: null }]),
      );
      out = withAnswers(
        out,
        line('GET /seats'),
        list((ss) => [...ss, ss[1]!, { id: [1] }, { id: [1] }]),
      );
      return out;
    });
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      '2 ids are repeated within a list: GET /dishes lists id 101 twice; GET /seats lists id 12 twice',
    );
    expect(r.fingerprints).toEqual(['GET /dishes:101', 'GET /seats:12']);
  });

  test('a list whose only repeats are ids that are not id-like passes', async () => {
    const r = await replayed('CONS-04', (xs) =>
      withAnswers(
        xs,
        line('GET /orders'),
        list((os) => [...os, { id: null }, { id: null }, { id: true }, { id: true }]),
      ),
    );
    expect(r.status).toBe('passed');
  });

  test('no list answered: nothing to judge', async () => {
    const r = await replayed('CONS-04', (xs) => unanswered(xs, '/dishes', '/seats', '/orders'));
    expect(r.status).toBe('skipped');
    expect(r.message).toBe('blocked: no list answered (see DISH-01, SEAT-01, ORD-01)');
    expect(r.notes).toEqual(
      ['dishes', 'seats', 'orders'].map(
        (l) => `/${l} not checked: GET /${l} answered status "ERROR", code 500 (HTTP 500)`,
      ),
    );
  });
});

describe("CONS-05/06: records carry the merchant's identifiers", () => {
  const merchant = (change: (m: Rec) => Rec) => (xs: RecordedExchange[]) =>
    withAnswers(xs, line('GET /merchant'), data(change));
  test('a /merchant without an integer id or a string merchant_id blocks the check that needs it', async () => {
    const id = await replayed(
      'CONS-05',
      merchant((m) => ({ ...m, id: '1' })),
    );
    expect(id.status).toBe('skipped');
    expect(id.message).toBe('blocked: /merchant id is "1", not an integer (see MER-01)');
    const mid = await replayed(
      'CONS-06',
      merchant((m) => ({ ...m, merchant_id: 5 })),
    );
    expect(mid.status).toBe('skipped');
    expect(mid.message).toBe('blocked: /merchant merchant_id is 5, not a string (see MER-01)');
  });

  test('CONS-05: five and seven records not compared, one seat of another merchant', async () => {
    const r = await replayed('CONS-05', (xs) => {
      const bad = (r: Rec) => ({ ...r, user_id: '1' });
      let out = withAnswers(
        xs,
        line('GET /dishes'),
        data((ds: Rec[]) => [...ds, { ...ds[0]!, id: 105 }].map(bad)),
      );
      out = withAnswers(
        out,
        line('GET /seats'),
        data((ss: Rec[]) => [
          ...[...ss, ...[14, 15, 16, 17].map((id) => ({ ...ss[0]!, id }))].map(bad),
          { ...ss[0]!, id: 18, user_id: 2 },
        ]),
      );
      return out;
    });
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual([
      'not compared, 5: user_id is not an int (see DISH-01, DISH-02, ORD-01): dish 101, dish 102, dish 103, dish 104, dish 105',
      'not compared, 7: user_id is not an int (see SEAT-01, SEAT-02, ORD-01): seat 11, seat 12, seat 13, seat 14, seat 15 and 2 more',
    ]);
    expect(r.message).toBe(
      "1 of 26 records do not carry the merchant's id (GET /merchant id is 1): seat 18 has user_id 2",
    );
  });

  test('CONS-05: a list not answered is noted, the other judged', async () => {
    const r = await replayed('CONS-05', (xs) =>
      withAnswers(
        unanswered(xs, '/dishes'),
        line('GET /seats'),
        data((ss: Rec[]) => ss.map((s) => (s.id === 12 ? { ...s, user_id: 3 } : s))),
      ),
    );
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual(['/dishes not checked: GET /dishes answered status "ERROR", code 500 (HTTP 500)']);
    expect(r.message).toBe(
      "1 of 12 records do not carry the merchant's id (GET /merchant id is 1): seat 12 has user_id 3",
    );
  });

  test("CONS-06: seats not answered, then orders not answered; a seat's merchant_id not a string; two records of another merchant", async () => {
    const noSeats = await replayed('CONS-06', (xs) =>
      withAnswers(
        unanswered(xs, '/seats'),
        line('GET /orders'),
        data((os: Rec[]) => os.map((o) => (o.id === 5002 ? o : { ...o, merchant_id: 'MCH2' }))),
      ),
    );
    expect(noSeats.status).toBe('failed');
    expect(noSeats.notes).toEqual(['/seats not checked: GET /seats answered status "ERROR", code 500 (HTTP 500)']);
    expect(noSeats.message).toBe(
      '2 records carry another merchant_id than GET /merchant ("MCH20240001"): order 5001 has merchant_id "MCH2"; order 5003 has merchant_id "MCH2"',
    );
    expect(noSeats.fingerprints).toEqual(['order:5001:merchant_id', 'order:5003:merchant_id']);
    const noOrders = await replayed('CONS-06', (xs) =>
      withAnswers(
        unanswered(xs, '/orders'),
        line('GET /seats'),
        data((ss: Rec[]) => ss.map((s) => (s.id === 12 ? { ...s, merchant_id: 5 } : s))),
      ),
    );
    expect(noOrders.status).toBe('passed');
    expect(noOrders.notes).toEqual([
      '/orders not checked: GET /orders answered status "ERROR", code 500 (HTTP 500)',
      'not compared, 1: merchant_id is not a string (see SEAT-01, SEAT-02, ORD-01): seat 12',
    ]);
  });
});

/** The recorded orders changed (a copy). */
const orders = (change: (os: Rec[]) => Rec[]) => (xs: RecordedExchange[]) =>
  withAnswers(xs, line('GET /orders'), data(change));
const order = (id: number, change: (o: Rec) => Rec) => orders((os) => os.map((o) => (o.id === id ? change(o) : o)));

describe("CONS-07: an order's seat_id and its seat", () => {
  test('a seat_id that is not an int is noted; seat_id 0 with a seat 0, a seat with a malformed id: nothing to compare', async () => {
    const r = await replayed(
      'CONS-07',
      orders((os) =>
        os.map((o) =>
          o.id === 5001
            ? { ...o, seat_id: '11' }
            : o.id === 5002
              ? { ...o, seat: { ...(o.seat as Rec), id: 'twelve' } }
              : { ...o, seat: { ...(os[0]!.seat as Rec), id: 0 } },
        ),
      ),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual(['not compared, 1: seat_id is not an int (see ORD-01): order 5001']);
  });
});

describe('CONS-08/10: the records an order embeds equal their own', () => {
  /** CONS-12's failing recording: GET /dishes lacks dish 103 and GET /seats seat 12, both details answer 404. */
  const lacking = { from: 'CONS-12', which: 'fail' } as const;
  const found = (json: unknown) => () => ({ status: 'SUCCESS', code: 200, data: json });
  const seat12 = (change: (s: Rec) => Rec) => (xs: RecordedExchange[]) => {
    const seat = (JSON.parse(xs.find(line('GET /orders'))!.response!.body) as { data: Rec[] }).data[1]!.seat as Rec;
    return withAnswers(xs, line('GET /seats/12'), found(change(seat)), 200);
  };

  test('CONS-08: a seat the list lacks and its detail does not answer is noted', async () => {
    const r = await replayed('CONS-08', (xs) => xs, lacking);
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "not compared, 1: neither GET /seats nor the first details asked answer the seat (see CONS-12): order 5002's seat 12",
    ]);
  });

  test('CONS-08: a seat the list lacks is compared with its detail: a difference fails, latitude is noted, extra fields are not', async () => {
    const r = await replayed(
      'CONS-08',
      seat12((s) => ({ ...s, table_number: 2, remark: 'moved', floor: 3 })),
      lacking,
    );
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual([
      'number vs numeric string, both allowed (issue 2 latitude): order 5002\'s seat 12: the order has table_number "2", GET /seats/12 has 2',
    ]);
    expect(r.message).toBe(
      '1 of 2 embedded seats differ from the seat record: order 5002\'s seat 12: the order has remark null, GET /seats/12 has "moved"',
    );
    expect(r.fingerprints).toEqual(['order:5002:seat.remark']);
  });

  test('CONS-08: a detail answering another id is not compared; a seat of an order with seat_id 0 is not either', async () => {
    const r = await replayed(
      'CONS-08',
      (xs) =>
        order(5003, (o) => ({ ...o, seat: { ...(o.seat as Rec), id: 11, remark: 'other' } }))(
          seat12((s) => ({ ...s, id: 13, remark: 'moved' }))(xs),
        ),
      lacking,
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "not compared, 1: neither GET /seats nor the first details asked answer the seat (see CONS-12): order 5002's seat 12",
    ]);
  });

  test('CONS-10: a dish the list lacks: noted, then compared with its detail; lines without a dish id said once', async () => {
    const shapes = order(5003, (o) => ({ ...o, dishes: 'none' }));
    const lines = order(5002, (o) => ({ ...o, dishes: [...(o.dishes as Rec[]), 'x', { id: null }] }));
    const noted = await replayed('CONS-10', (xs) => lines(shapes(xs)), lacking);
    expect(noted.status).toBe('passed');
    expect(noted.notes).toEqual([
      'not compared, 2: an order line without a dish id (see ORD-01): order 5002, order 5002',
      'not compared, 1: dishes is not an array (see ORD-01): order 5003',
      "not compared, 1: neither GET /dishes nor the first details asked answer the dish (see CONS-12): order 5001's dish 103",
    ]);
    const compared = await replayed(
      'CONS-10',
      (xs) =>
        withAnswers(
          xs,
          line('GET /dishes/103'),
          found({
            id: 103,
            name: 'Jasmine tea 茉莉花茶',
            price: 13,
            stock: 200,
            unit: 'cup',
            category_id: 3,
            user_id: 1,
          }),
          200,
        ),
      lacking,
    );
    expect(compared.status).toBe('failed');
    expect(compared.notes).toEqual([]);
    expect(compared.message).toBe(
      '1 of 4 embedded dishes differ from the dish record: order 5001\'s dish 103: the order has price 12.8, GET /dishes/103 has 13; the order has unit null, GET /dishes/103 has "cup"',
    );
    expect(compared.fingerprints).toEqual(['order:5001:dish:103:price', 'order:5001:dish:103:unit']);
  });

  test('CONS-10: ids that are not digits are not asked for, and only the first 20 details are', async () => {
    const many = Array.from({ length: 21 }, (_, i) => 201 + i);
    const r = await replayed(
      'CONS-10',
      (xs) => {
        let out = order(5001, (o) => {
          const d = (o.dishes as Rec[])[0]!;
          return { ...o, dishes: [...many, 'x1', '1x'].map((id) => ({ ...d, id })) };
        })(xs);
        for (const id of many.slice(0, 20))
          out = plus(out, 'GET /dishes/103', `/dishes/${id}`, { status: 'SUCCESS', code: 200, data: { id } });
        return out;
      },
      lacking,
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      "not compared, 3: neither GET /dishes nor the first details asked answer the dish (see CONS-12): order 5001's dish 221, order 5001's dish x1, order 5001's dish 1x",
    ]);
  });
});

describe('CONS-09: the pivot names its order and dish', () => {
  test('a line without a pivot is noted, not judged', async () => {
    const r = await replayed(
      'CONS-09',
      order(5001, (o) => ({ ...o, dishes: [{ ...(o.dishes as Rec[])[0]!, pivot: null }, 'x'] })),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      'not compared, 2: an order line without a dish object or pivot (see ORD-01): order 5001, order 5001',
    ]);
  });
});

describe("CONS-11: order_table_number and the seat's table_number", () => {
  test('compared as numbers, written in every way; what is not a number, or not the seat, is not compared', async () => {
    const r = await replayed('CONS-11', (xs) => {
      const withSeat = orders((os) => {
        const first = os[0]!;
        const at = (
          id: number,
          table: unknown,
          otn: unknown,
          seat: Rec | null = { ...(first.seat as Rec), table_number: table },
        ) => ({
          ...first,
          id,
          order_table_number: otn,
          seat,
          seat_id: seat === null ? 13 : 11,
        });
        return [
          ...os,
          at(6001, 'A1', 1),
          at(6002, '1A', 1),
          at(6003, ' 2', 2),
          at(6004, '2 ', 2),
          at(6005, '12', 12),
          at(6006, 5, 6),
          at(6007, [3], 3),
          at(6008, '1', '1'),
          at(6009, '7', 1, { ...(first.seat as Rec), id: 12, table_number: '7' }),
          at(6010, undefined, 9, null),
          { ...first, id: 6011, seat_id: 99, seat: null },
          { ...first, id: 6012, seat_id: 0, seat: null, order_table_number: 5 },
        ];
      })(xs);
      return withAnswers(
        withSeat,
        line('GET /seats'),
        data((ss: Rec[]) => [...ss, { ...ss[0]!, id: 'undefined', table_number: '99' }]),
      );
    });
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([
      '3 orders sit at seats whose table_number is not a number: not compared with the int order_table_number',
    ]);
    expect(r.message).toBe(
      '2 of 7 orders whose table number is not their seat\'s: order 6006 has order_table_number 6, its seat 11 has table_number 5; order 6010 has order_table_number 9, its seat 13 has table_number "8"',
    );
  });
});

describe('CONS-12: every dish and seat an order names is listed', () => {
  const lacking = { from: 'CONS-12', which: 'fail' } as const;
  const notFound = { status: 'ERROR', code: 404, msg: 'Record not found' };
  const missing = (xs: RecordedExchange[], ...paths: string[]) =>
    paths.reduce((out, p) => plus(out, 'GET /dishes/103', p, notFound, 404), xs);

  test('a dish its detail answers, one a pivot names, one of another merchant, one without user_id', async () => {
    const r = await replayed(
      'CONS-12',
      (xs) => {
        let out = withAnswers(
          xs,
          line('GET /dishes/103'),
          () => ({ status: 'SUCCESS', code: 200, data: { id: 103, name: 'Jasmine tea' } }),
          200,
        );
        out = orders((os) =>
          os.map((o) => {
            const [line1] = o.dishes as Rec[];
            const as = (id: number, more: Rec = {}): Rec => ({
              ...line1!,
              id,
              ...more,
              pivot: { ...(line1!.pivot as Rec), dish_id: id },
            });
            if (o.id === 5002)
              return {
                ...o,
                dishes: [{ ...line1!, pivot: { ...(line1!.pivot as Rec), dish_id: 105 } }, null, { id: 101 }],
              };
            if (o.id === 5003) {
              const { user_id: _, ...anonymous } = as(107);
              return { ...o, dishes: [as(106, { user_id: 2 }), anonymous] };
            }
            return o;
          }),
        )(out);
        return missing(out, '/dishes/105', '/dishes/106', '/dishes/107');
      },
      lacking,
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      "5 of 8 dishes and seats that orders name are missing from their lists: GET /dishes lacks dish 103, which order 5001's dishes[] names and GET /dishes/103 answers; order 5002's pivot.dish_id names dish 105, which no endpoint knows (not in GET /dishes; GET /dishes/105 answers no such dish); order 5003's dishes[] names dish 106 (it carries user_id 2, not the merchant's 1), which no endpoint knows (not in GET /dishes; GET /dishes/106 answers no such dish); order 5003's dishes[] names dish 107, which no endpoint knows (not in GET /dishes; GET /dishes/107 answers no such dish); order 5002's seat_id names seat 12, which no endpoint knows (not in GET /seats; GET /seats/12 answers no such seat)",
    );
    expect(r.fingerprints).toEqual([
      'dish:103:unlisted',
      'dish:105:unlisted',
      'dish:106:unlisted',
      'dish:107:unlisted',
      'seat:12:unlisted',
    ]);
  });

  test('a seat embedded under a listed seat_id, of another merchant; no seat object; seat_id 0 with a seat', async () => {
    const r = await replayed(
      'CONS-12',
      (xs) =>
        missing(
          orders((os) => {
            const seat = os[0]!.seat as Rec;
            return [
              ...os.map((o) =>
                o.id === 5001
                  ? { ...o, seat: null }
                  : o.id === 5003
                    ? { ...o, seat_id: 13, seat: { ...seat, id: 14, user_id: 2 } }
                    : o,
              ),
              { ...os[2]!, id: 5004, seat_id: 0, seat: { ...seat, id: 15 } },
            ];
          })(xs),
          '/seats/14',
        ),
      lacking,
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      "3 of 8 dishes and seats that orders name are missing from their lists: order 5001's dishes[] names dish 103, which no endpoint knows (not in GET /dishes; GET /dishes/103 answers no such dish); order 5002's seat_id names seat 12, which no endpoint knows (not in GET /seats; GET /seats/12 answers no such seat); order 5003's seat names seat 14 (it carries user_id 2, not the merchant's 1), which no endpoint knows (not in GET /seats; GET /seats/14 answers no such seat)",
    );
    expect(r.fingerprints).toEqual(['dish:103:unlisted', 'seat:12:unlisted', 'seat:14:unlisted']);
  });

  test("without /merchant's answer no owner is said; without /seats' the dishes are still judged; without /merchant in the recording, nothing is", async () => {
    const owned = order(5001, (o) => ({ ...o, dishes: (o.dishes as Rec[]).map((d) => ({ ...d, user_id: 2 })) }));
    const r = await replayed('CONS-12', (xs) => unanswered(owned(xs), '/merchant', '/seats'), lacking);
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual(['/seats not checked: GET /seats answered status "ERROR", code 500 (HTTP 500)']);
    expect(r.message).toBe(
      "1 of 4 dishes and seats that orders name are missing from their lists: order 5001's dishes[] names dish 103, which no endpoint knows (not in GET /dishes; GET /dishes/103 answers no such dish)",
    );
    const unrecorded = await replayed('CONS-12', (xs) => without('GET /merchant')(owned(xs)), lacking);
    expect(unrecorded.status).toBe('skipped');
    expect(unrecorded.message).toBe('not in the recording: GET /merchant');
  });

  test('only the first 20 details of unlisted ids are asked for, and never one of an id that is not digits', async () => {
    const many = Array.from({ length: 18 }, (_, i) => 201 + i);
    const r = await replayed(
      'CONS-12',
      (xs) =>
        missing(
          order(5002, (o) => {
            const [d] = o.dishes as Rec[];
            return { ...o, dishes: ['x1', '1x', ...many].map((id) => ({ ...d!, id })) };
          })(xs),
          ...many.slice(0, 17).map((id) => `/dishes/${id}`),
        ),
      lacking,
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      "22 of 26 dishes and seats that orders name are missing from their lists: order 5001's dishes[] names dish 103, which no endpoint knows (not in GET /dishes; GET /dishes/103 answers no such dish); order 5002's dishes[] names dish x1, which GET /dishes lacks (its detail not asked: not an integer id); order 5002's dishes[] names dish 1x, which GET /dishes lacks (its detail not asked: not an integer id); order 5002's dishes[] names dish 201, which no endpoint knows (not in GET /dishes; GET /dishes/201 answers no such dish); order 5002's dishes[] names dish 202, which no endpoint knows (not in GET /dishes; GET /dishes/202 answers no such dish); … and 17 more",
    );
    expect(r.fingerprints).toHaveLength(22);
  });
});
