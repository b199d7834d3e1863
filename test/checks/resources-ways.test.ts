/**
 * The detail shape checks (DISH-02, SEAT-02) and ORD-02: each way they fail, and what they say of a sample or of the
 * first record, from a recorded pass or fail with the answers under test changed (test/checks/altered.ts).
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
type Envelope = { status: string; code: number; data: unknown };
const dataOf = (json: unknown) => (json as Envelope).data;
const line = (l: string) => (x: RecordedExchange) => requestOf(x).line === l;
const withData = (change: (data: unknown) => unknown) => (json: unknown) => ({
  ...(json as object),
  data: change(dataOf(json)),
});

describe('DISH-02/SEAT-02: each detail judged, the first one looked at whole', () => {
  const rec = () => recordingsOf('DISH-02').pass!;
  // app's details alone (#35: other_app's are judged too; its ways are proven live by reference/mutants/other-merchant.ts).
  const appOnly = () => {
    const { other_app: _other, ...config } = rec().config;
    return config;
  };
  const dish02 = (exchanges: RecordedExchange[], config = appOnly()) => replay(check('DISH-02'), config, exchanges);

  test('details that do not match the shape: each named, with the path of each problem', async () => {
    let exchanges = withAnswers(
      rec().exchanges,
      line('GET /dishes/102'),
      withData((d) => ({ ...(d as object), price: 'x' })),
    );
    exchanges = withAnswers(
      exchanges,
      line('GET /dishes/104'),
      withData((d) => ({ ...(d as object), name: 5, stock: null })),
    );
    const r = await dish02(exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      /^2 of 4 details do not match the dish shape: GET \/dishes\/102: \/data\/price .+; GET \/dishes\/104: \/data\/name .+$/,
    );
    expect(r.fingerprints).toEqual(['dish:102/price', 'dish:104/name', 'dish:104/stock']);
  });

  test('a detail that is not a success', async () => {
    const r = await dish02(
      withAnswers(rec().exchanges, line('GET /dishes/103'), () => ({ status: 'ERROR', code: 404 }), 404),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      'GET /dishes/103: expected status "SUCCESS" and code 200, got HTTP 404, code 404, status "ERROR"',
    );
  });

  test("the first listed id's detail is looked at whole: its extra fields noted, not another's", async () => {
    const extra = (id: number) =>
      withAnswers(
        rec().exchanges,
        line(`GET /dishes/${id}`),
        withData((d) => ({ ...(d as object), spicy: true })),
      );
    const first = await dish02(extra(101));
    expect(first.status).toBe('passed');
    expect(first.notes).toEqual(['GET /dishes/101: fields the spec does not list (allowed): data.spicy']);
    // The list's order is 101, 102, 103, 104; an extra field on a later one is not the first's.
    for (const later of [102, 104]) expect((await dish02(extra(later))).notes).toEqual([]);
  });

  test('an empty list: no detail to ask for, nothing judged and nothing failed', async () => {
    const r = await dish02(
      withAnswers(
        rec().exchanges,
        line('GET /dishes'),
        withData(() => []),
      ),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual([]);
  });

  test('a seeded sample (max_details) is said, with its seed', async () => {
    const r = await dish02(rec().exchanges, { ...rec().config, max_details: 2 });
    expect(r.status).toBe('passed');
    expect(r.notes).toEqual(['checked a seeded sample of 2 of 4 dishes (seed 12345)']);
  });

  test('SEAT-02: the seat shape, named by seat', async () => {
    const seats = recordingsOf('SEAT-02').pass!;
    const { other_app: _other, ...appOnly } = seats.config;
    const r = await replay(
      check('SEAT-02'),
      appOnly,
      withAnswers(
        seats.exchanges,
        line('GET /seats/12'),
        withData((d) => ({ ...(d as object), table_number: [] })),
      ),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^1 of 3 details do not match the seat shape: GET \/seats\/12: \/data\/table_number /);
    expect(r.fingerprints).toEqual(['seat:12/table_number']);
  });
});

describe('ORD-02: devices without the sample members, counted over both applications', () => {
  const PREFIX =
    "§2.4: a builder should emit the members of both device lists; the sample's (device_id, remark, status, created_at, updated_at, seat_id, version_name) are missing in";
  const missing = (at: string) =>
    [
      `${at} missing required field "device_id"`,
      `${at} missing required field "remark"`,
      `${at} missing required field "status"`,
      `${at} missing required field "created_at"`,
      '… and 3 more',
    ].join('; ');

  test("every order's device without them: the first three named, all counted", async () => {
    const rec = recordingsOf('ORD-02').fail!;
    const r = await replay(check('ORD-02'), rec.config, rec.exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${PREFIX} 4 of 4 orders (the field table's id, uuid, name, ip, data are ORD-01's, at MUST): order 5001: ${missing('/data/0/device')}; order 5002: ${missing('/data/1/device')}; order 5003: ${missing('/data/2/device')}`,
    );
  });

  test('without other_app, app alone is judged and counted', async () => {
    const rec = recordingsOf('ORD-02').fail!;
    const { other_app: _, ...config } = rec.config;
    const r = await replay(check('ORD-02'), config, rec.exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/ are missing in 3 of 3 orders \(/);
  });

  const pass = () => recordingsOf('ORD-02').pass!;
  const ordersOf = (who: 'app' | 'other_app') => {
    const token = issuedToken(pass().exchanges, pass().config[who]!.key);
    return (x: RecordedExchange) => requestOf(x).line === 'GET /orders' && requestOf(x).token === token;
  };
  const bare = (device: unknown) => {
    const { id, uuid, name, ip, data } = device as Record<string, unknown>;
    return { id, uuid, name, ip, data };
  };
  type Orders = Array<Record<string, unknown>>;
  /** Devices with the field table's members only. */
  const bareDevices = withData((orders) => (orders as Orders).map((o) => ({ ...o, device: bare(o.device) })));
  /** ORD-02 over the pass with each application's orders changed as given. */
  const ord02 = (changes: Partial<Record<'app' | 'other_app', (json: unknown) => unknown>>) => {
    let exchanges: RecordedExchange[] = pass().exchanges;
    for (const [who, change] of Object.entries(changes))
      exchanges = withAnswers(exchanges, ordersOf(who as 'app' | 'other_app'), change);
    return replay(check('ORD-02'), pass().config, exchanges);
  };
  const counted = (n: number) => new RegExp(`^${PREFIX.replace(/[()]/g, '\\$&')} ${n} of 4 orders `);

  test("only other_app's order: named with its token", async () => {
    const r = await ord02({ other_app: bareDevices });
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `${PREFIX} 1 of 4 orders (the field table's id, uuid, name, ip, data are ORD-01's, at MUST): order 6001 with other_app's token: ${missing('/data/0/device')}`,
    );
  });

  test('the orders past the third are counted only when they lack the members', async () => {
    // app's three orders lack them, other_app's one has them: three of four.
    expect((await ord02({ app: bareDevices })).message).toMatch(counted(3));
    // A fourth that lacks one member only, past the three listed: counted, not named.
    const withoutVersion = withData((orders) =>
      (orders as Orders).map((o) => {
        const { version_name: _, ...device } = o.device as Record<string, unknown>;
        return { ...o, device };
      }),
    );
    const four = await ord02({ app: bareDevices, other_app: withoutVersion });
    expect(four.message).toMatch(counted(4));
    expect(four.message).not.toContain('6001');
  });
});
