/**
 * FUZZ-01's ways of failing that its mutant's recording does not show. The fail recording (fuzz-big-id-500) is
 * replayed with every answer that failed (HTTP 500) turned into another wrong answer: the same ids fail, so fast-check
 * shrinks along the recorded path to the same counterexample, and the finding is the changed answer's.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers, withBodies } from './altered.js';
import type { Config } from '../../core/config/config.js';
import { runChecks } from '../../core/engine/engine.js';
import { clientFor } from '../../core/engine/run.js';
import { demoConfig, startReferenceServer } from '../../app/demo.js';
import { RECORDING_SETTINGS } from '../../app/check-recordings.js';
import { MUTANTS } from '../../reference/mutants/index.js';
import type { Variant } from '../../reference/server.js';

const FUZZ = ALL_CHECKS.find((c) => c.id === 'FUZZ-01')!;
const failRec = () => recordingsOf('FUZZ-01').fail!;
const passRec = () => recordingsOf('FUZZ-01').pass!;

/** The counterexample the recording shrinks to, and what its message says of it. */
const SEAT = '9007199254740993';
const ASKED = `GET /seats/${SEAT} for seat id "${SEAT}"`;
const EXPECTED = `expected seat ${SEAT} or an error with code 400 or 404`;

const failed = (x: RecordedExchange): boolean => x.response?.status === 500;
/** The seat id a detail request asked for. */
const seatOf = (x: RecordedExchange): string => requestOf(x).line.replace('GET /seats/', '');

/** The fail recording with each failing answer replaced by the JSON text `answer` makes of its seat id. */
function failingWith(answer: (seat: string) => string, status = 200): RecordedExchange[] {
  return failRec().exchanges.map((x) =>
    failed(x)
      ? withBodies(
          [x],
          () => true,
          () => answer(seatOf(x)),
          status,
        )[0]!
      : x,
  );
}
const json = (body: unknown) => () => JSON.stringify(body);
const judge = (exchanges: RecordedExchange[], config = failRec().config) => replay(FUZZ, config, exchanges);

/** A seat of merchant A (user 1, MCH20240001) as the reference server answers it, its id written as asked. */
const seatA = (id: string, owner = '"merchant_id":"MCH20240001","user_id":1') =>
  `{"id":${id},"table_number":"1","remark":null,"status":0,${owner},"created_at":"2024-01-10 09:00","updated_at":"2024-01-10 09:00"}`;
const seatB = (id: string) => seatA(id, '"merchant_id":"MCH20240002","user_id":2');
const EVERY_PAIR =
  '30 generated dish_id/seat_id pairs (seed 12345): every answer was the record asked for or an error 400/404';
const ok = (data: string) => `{"status":"SUCCESS","code":200,"data":${data}}`;

describe('FUZZ-01: each way a fuzzed id is answered wrongly fails, with its own finding', () => {
  test('the recorded 500 itself, with the replay line and the fuzz record', async () => {
    const r = await judge(failRec().exchanges);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      new RegExp(`^${ASKED} answered HTTP 500, code 500, status "ERROR"; ${EXPECTED} — counterexample `),
    );
    expect(r.fuzz).toEqual({
      seed: 12345,
      path: expect.stringMatching(/^22:/),
      counterexample: `{"dish_id":"%20","seat_id":"${SEAT}"}`,
      shrinks: 74,
      replay: `--seed 12345 --fuzz-path ${r.fuzz!.path}`,
    });
  });

  test('a body that is not JSON, and JSON that is not an object', async () => {
    const html = failRec().exchanges.map((x) =>
      failed(x)
        ? withBodies(
            [x],
            () => true,
            () => '<h1>oops</h1>',
          )[0]!
        : x,
    );
    const r = await judge(html);
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      `${ASKED} answered HTTP 500 with a body that is not JSON ("<h1>oops</h1>"): not a JSON envelope; ${EXPECTED}`,
    );
    const list = await judge(failingWith(json([1])));
    expect(list.message).toContain(`${ASKED} answered HTTP 200`);
    expect(list.message).toContain(`: not a JSON envelope; ${EXPECTED}`);
    const nothing = await judge(failingWith(json(null)));
    expect(nothing.status).toBe('failed');
    expect(nothing.message).toContain(`: not a JSON envelope; ${EXPECTED}`);
  });

  test('code 200 without status SUCCESS, and SUCCESS with another code: neither envelope', async () => {
    for (const body of [
      { code: 200, data: {} },
      { status: 'SUCCESS', code: 201, data: {} },
    ]) {
      const r = await judge(failingWith(json(body)));
      expect(r.status, JSON.stringify(body)).toBe('failed');
      expect(r.message).toContain(`${ASKED} answered HTTP 200`);
      expect(r.message).toContain(`: neither a success nor an error envelope; ${EXPECTED}`);
    }
  });

  test('SUCCESS with data that is no record', async () => {
    const r = await judge(failingWith(() => ok('null')));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`${ASKED} answered SUCCESS with data null; ${EXPECTED}`);
  });

  test('another seat than the one asked for', async () => {
    const r = await judge(failingWith(() => ok(seatA('12'))));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`${ASKED} answered seat 12; ${EXPECTED}`);
  });

  test("the seat asked for, but merchant B's", async () => {
    const r = await judge(failingWith((seat) => ok(seatB(seat))));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      `GET /seats/${SEAT} answered merchant B's seat ${SEAT} (user_id 2) to merchant A's token; expected an error with code 400 or 404`,
    );
  });

  test("the seat asked for, marked as merchant A's, but not in A's list", async () => {
    const r = await judge(failingWith((seat) => ok(seatA(seat))));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      `GET /seats/${SEAT} answered seat ${SEAT}, which is not among this merchant's GET /seats; expected an error with code 400 or 404`,
    );
  });

  test('an error 404 whose body is not the error envelope', async () => {
    const r = await judge(failingWith(json({ code: 404, msg: 'Record not found' }), 404));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`${ASKED} answered an error body that is not an error envelope (§7): `);
  });

  test("an error 404 that carries merchant B's seat", async () => {
    const r = await judge(
      failingWith((seat) => `{"status":"ERROR","code":404,"msg":"Record not found","data":${seatB(seat)}}`, 404),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`GET /seats/${SEAT} answered an error that carries merchant B's seat (user_id 2)`);
  });
});

describe('FUZZ-01: what is not a finding', () => {
  test('an error 400 is as good as a 404', async () => {
    const rec = passRec();
    const r = await replay(
      FUZZ,
      rec.config,
      withAnswers(
        rec.exchanges,
        (x) => x.response?.status === 404,
        (j) => ({ ...(j as object), code: 400 }),
        400,
      ),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      '30 generated dish_id/seat_id pairs (seed 12345): every answer was the record asked for or an error 400/404',
    );
  });

  test('a listed id that is no id (an array) is not fuzzed as a real id', async () => {
    const rec = passRec();
    const token = issuedToken(rec.exchanges, rec.config.app.key);
    const dishes = (x: RecordedExchange) => requestOf(x).line === 'GET /dishes' && requestOf(x).token === token;
    const r = await replay(
      FUZZ,
      rec.config,
      withAnswers(rec.exchanges, dishes, (j) => {
        const env = j as { data: unknown[] };
        return { ...env, data: [...env.data, { id: [104] }] };
      }),
    );
    expect(r.status).toBe('passed');
  });

  test('no answer to a fuzzed id is no evidence: the check is incomplete', async () => {
    const rec = failRec();
    const path = (await judge(rec.exchanges)).fuzz!.path;
    const timedOut = rec.exchanges.map((x) =>
      requestOf(x).line === `GET /seats/${SEAT}` ? { request: x.request, error: 'timeout' } : x,
    );
    const r = await judge(timedOut, { ...rec.config, fuzz: { ...rec.config.fuzz, path } });
    expect(r.status).toBe('incomplete');
    expect(r.message).toBe(`could not finish: GET ${rec.config.base_url}/seats/${SEAT}: timeout`);
  });

  test("no answer to merchant B's list is no evidence: the check is incomplete", async () => {
    const rec = passRec();
    const token = issuedToken(rec.exchanges, rec.config.other_app!.key);
    const timedOut = rec.exchanges.map((x) =>
      requestOf(x).line === 'GET /dishes' && requestOf(x).token === token
        ? { request: x.request, error: 'timeout' }
        : x,
    );
    const r = await replay(FUZZ, rec.config, timedOut);
    expect(r.status).toBe('incomplete');
    expect(r.message).toBe(`could not finish: GET ${rec.config.base_url}/dishes: timeout`);
  });

  describe("FUZZ-01: merchant B's identity and ids", () => {
    const rec = () => passRec();
    const tokenB = () => issuedToken(rec().exchanges, rec().config.other_app!.key);
    const ofB = (line: string) => (x: RecordedExchange) =>
      requestOf(x).line === line && requestOf(x).token === tokenB();
    /** The pass recording with other_app's /auth answer carrying no merchant, and B's GET /merchant answered so. */
    const merchantOfB = (answer: Partial<RecordedExchange>): RecordedExchange[] => {
      const exchanges = withAnswers(
        rec().exchanges,
        (x) => new URL(x.request.url).searchParams.get('key') === rec().config.other_app!.key,
        (j) => {
          const { merchant: _m, ...data } = (j as { data: Record<string, unknown> }).data;
          return { ...(j as object), data };
        },
      );
      const list = exchanges.find(ofB('GET /dishes'))!;
      return [
        ...exchanges,
        { request: { ...list.request, url: list.request.url.replace(/\/dishes$/, '/merchant') }, ...answer },
      ];
    };

    test("B's merchant that cannot be told is noted, and A's ids are still fuzzed", async () => {
      const r = await replay(
        FUZZ,
        rec().config,
        merchantOfB({
          response: { status: 500, headers: {}, body: '{"status":"ERROR","code":500,"msg":"System exception"}' },
        }),
      );
      expect(r.status).toBe('passed');
      expect(r.notes).toContain('merchant B not used: GET /merchant answered status "ERROR", code 500 (HTTP 500)');
      expect(r.notes).toContain(EVERY_PAIR);
    });

    test("no answer to B's GET /merchant is no evidence: the check is incomplete", async () => {
      const r = await replay(FUZZ, rec().config, merchantOfB({ error: 'timeout' }));
      expect(r.status).toBe('incomplete');
      expect(r.message).toBe(`could not finish: GET ${rec().config.base_url}/merchant: timeout`);
    });

    test("A's ids in B's list (a leak ISO-01 reports) are not fuzzed as B's", async () => {
      const r = await replay(
        FUZZ,
        rec().config,
        withAnswers(rec().exchanges, ofB('GET /dishes'), (j) => {
          const env = j as { data: unknown[] };
          return { ...env, data: [{ id: 101, user_id: 1 }, ...env.data] };
        }),
      );
      expect(r.status).toBe('passed');
      expect(r.notes).toContain(EVERY_PAIR);
    });
  });

  describe('FUZZ-01: replaying a path', () => {
    test('replays the counterexample alone, and says so', async () => {
      const rec = failRec();
      const path = (await judge(rec.exchanges)).fuzz!.path;
      // Only the path's case and its shrinks are asked for: the cases of the whole run are not in this recording.
      const onPath = new Set([
        '/dishes/%20',
        `/seats/${SEAT}`,
        '/seats/9007199254740989',
        '/seats/9007199254740991',
        '/seats/9007199254740992',
      ]);
      const exchanges = rec.exchanges.filter((x) => {
        const p = new URL(x.request.url).pathname.replace(/^\/open/, '');
        return !/^\/(dishes|seats)\/./.test(p) || onPath.has(p);
      });
      const r = await judge(exchanges, { ...rec.config, fuzz: { ...rec.config.fuzz, path } });
      expect(r.status).toBe('failed');
      expect(r.notes).toContain(`replayed fuzz path ${path} (seed 12345)`);
      expect(r.message).toContain(
        `— counterexample {"dish_id":"%20","seat_id":"${SEAT}"} (run 1 of 30, shrunk 0 times)`,
      );
    });

    test('a path that does not exist for the seed judges nothing', async () => {
      const rec = passRec();
      const r = await replay(FUZZ, { ...rec.config, fuzz: { ...rec.config.fuzz, path: '0:999' } }, rec.exchanges);
      expect(r.status).toBe('skipped');
      expect(r.message).toBe('blocked: the fuzz path 0:999 does not exist for seed 12345');
    });
  });
});

/**
 * Against the reference server, at the recordings' seed: what a recording cannot hold, since the ids drawn depend on
 * the configured applications and their lists, and shrinking a new failure asks for ids no recording has.
 */
async function live(variants: Variant[], configure: (c: Config) => Config = (c) => c) {
  const server = await startReferenceServer({ https: true, variants });
  try {
    const config = configure(demoConfig(server, RECORDING_SETTINGS));
    const { records } = await runChecks(config, [FUZZ], (r) => clientFor(config, r));
    return records[0]!;
  } finally {
    await server.close();
  }
}
/** The check's notes, without the one on how much evidence the report keeps. */
const said = (r: { notes: string[] }) => r.notes.filter((n) => !n.startsWith('evidence: '));
const mutant = (name: string) => MUTANTS.find((m) => m.name === name)!;

describe('FUZZ-01 live, where no recording can replay', () => {
  test('a segment that names no id answered with a record fails, saying it names none', async () => {
    const r = await live([mutant('fuzz-parseint-dish-ids')]);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      /^GET \/dishes\/\S+ for dish id "[^"]*" \(names no id\) answered dish 10\d; expected an error with code 400 or 404 — counterexample /,
    );
  });

  test('both ids failing are both told', async () => {
    const every500: Variant = {
      name: 'every-detail-500',
      description: 'every dish and seat detail answers 500',
      handle: (req, next, world) =>
        /^\/(dishes|seats)\/[^/]+$/.test(req.path) ? world.render.error(500, 'System exception') : next(),
    };
    const r = await live([every500]);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^GET \/dishes\/\S+ for dish id .*; GET \/seats\/\S+ for seat id .* — counterexample /);
  });

  test('without other_app, only merchant A is fuzzed, with nothing to say of B', async () => {
    const r = await live([], ({ other_app: _b, ...c }) => c);
    expect(r.status).toBe('passed');
    expect(said(r)).toEqual([EVERY_PAIR]);
  });

  test('an other_app of the same merchant is not taken for merchant B', async () => {
    const r = await live([], (c) => ({ ...c, other_app: { ...c.app } }));
    expect(r.status).toBe('passed');
    expect(said(r)).toEqual([
      "other_app belongs to the same merchant as app: its ids are not fuzzed as another merchant's",
      EVERY_PAIR,
    ]);
  });

  test("merchant B's list that carries no array is noted, and A's ids are still fuzzed", async () => {
    const noList: Variant = {
      name: 'merchant-b-dishes-no-array',
      description: "merchant B's GET /dishes answers data null",
      handle: (req, next) =>
        req.path === '/dishes' && req.merchant?.id === 2
          ? { ...next(), body: { status: 'SUCCESS', code: 200, data: null } }
          : next(),
    };
    const r = await live([noList]);
    expect(r.status).toBe('passed');
    expect(said(r)).toEqual(["merchant B's dishes not fuzzed: GET /dishes carried no array", EVERY_PAIR]);
  });
});
