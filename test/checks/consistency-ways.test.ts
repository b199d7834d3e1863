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
const refused = () => ({ status: 'ERROR', code: 500 });

/** Replays check `id` over a recording (its pass, or `from`'s) with the exchanges edited, at the recorded settings. */
async function replayed(
  id: string,
  edit: (xs: RecordedExchange[]) => RecordedExchange[],
  { from = id, which = 'pass', config = {} }: { from?: string; which?: 'pass' | 'fail'; config?: Partial<Config> } = {},
) {
  const rec = recordingsOf(from)[which]!;
  return replay(check(id), { ...rec.config, ...config }, edit(rec.exchanges));
}

/** The recording with the request `l` no longer in it: the check that asks for it cannot finish. */
const without =
  (l: string) =>
  (xs: RecordedExchange[]): RecordedExchange[] => {
    const out = xs.filter((x) => !line(l)(x));
    expect(out.length).toBe(xs.length - 1);
    return out;
  };

/**
 * The recording with one more request answered: a copy of the recorded `like` request (its token and headers)
 * for another path, answered `json` with `status`. For the detail of an id no recorded list named.
 */
function plus(xs: RecordedExchange[], like: string, path: string, json: unknown, status = 200): RecordedExchange[] {
  const model = xs.find(line(like))!;
  const url = new URL(model.request.url);
  url.pathname = `${url.pathname.replace(/\/[^/]*\/[^/]*$|\/[^/]*$/, '')}${path}`;
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
  test('a sample of max_details is said, for each resource: one detail answering another id fails', async () => {
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
        withAnswers(xs, line('GET /dishes'), refused, 500),
        line('GET /seats/12'),
        data((d: Rec) => ({ ...d, id: 13 })),
      ),
    );
    expect(one.status).toBe('failed');
    expect(one.notes).toEqual(['/dishes: GET /dishes answered status "ERROR", code 500 (HTTP 500)']);
    expect(one.message).toBe(
      '1 of 3 details answer another id than the one asked for: GET /seats/12 answered seat 13 instead of seat 12',
    );
    const none = await replayed('CONS-01', (xs) =>
      withAnswers(withAnswers(xs, line('GET /dishes'), refused, 500), line('GET /seats'), refused, 500),
    );
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
  test('latitude and fields the spec does not list are noted with how many records; what cannot be compared too', async () => {
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

  test('records without an id-like id only: nothing repeated', async () => {
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
    const r = await replayed('CONS-04', (xs) =>
      withAnswers(
        withAnswers(withAnswers(xs, line('GET /dishes'), refused, 500), line('GET /seats'), refused, 500),
        line('GET /orders'),
        refused,
        500,
      ),
    );
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
      'not compared, 5: user_id is not an int (see DISH-01): dish 101, dish 102, dish 103, dish 104, dish 105',
      'not compared, 7: user_id is not an int (see SEAT-01): seat 11, seat 12, seat 13, seat 14, seat 15 and 2 more',
    ]);
    expect(r.message).toBe(
      "1 of 13 records do not carry the merchant's id (GET /merchant id is 1): seat 18 has user_id 2",
    );
  });

  test('CONS-05: a list not answered is noted, the other judged', async () => {
    const r = await replayed('CONS-05', (xs) =>
      withAnswers(
        withAnswers(xs, line('GET /dishes'), refused, 500),
        line('GET /seats'),
        data((ss: Rec[]) => ss.map((s) => (s.id === 12 ? { ...s, user_id: 3 } : s))),
      ),
    );
    expect(r.status).toBe('failed');
    expect(r.notes).toEqual(['/dishes not checked: GET /dishes answered status "ERROR", code 500 (HTTP 500)']);
    expect(r.message).toBe(
      "1 of 3 records do not carry the merchant's id (GET /merchant id is 1): seat 12 has user_id 3",
    );
  });

  test("CONS-06: seats not answered, then orders not answered; a seat's merchant_id not a string; two records of another merchant", async () => {
    const noSeats = await replayed('CONS-06', (xs) =>
      withAnswers(
        withAnswers(xs, line('GET /seats'), refused, 500),
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
        withAnswers(xs, line('GET /orders'), refused, 500),
        line('GET /seats'),
        data((ss: Rec[]) => ss.map((s) => (s.id === 12 ? { ...s, merchant_id: 5 } : s))),
      ),
    );
    expect(noOrders.status).toBe('passed');
    expect(noOrders.notes).toEqual([
      '/orders not checked: GET /orders answered status "ERROR", code 500 (HTTP 500)',
      'not compared, 1: merchant_id is not a string (see SEAT-01): seat 12',
    ]);
  });
});
