/**
 * The ways the credential checks (suites/credentials.ts, SEC-01 and SEC-02) fail or hold back that no mutant's
 * recording shows: each a recorded pass with answers or the configuration changed, as ways.test.ts does, so that
 * each place and kind of credential, each application configured or not, and each answer they cannot read is proven
 * by a verdict and the words it says.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { runChecks } from '../../core/engine/engine.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import type { Config } from '../../core/config/config.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const pass = (id: string) => recordingsOf(id).pass!;
type Who = 'app' | 'other_app';
type Rec = Record<string, unknown>;

/** The answer to a GET of a line ("GET /seats") with an application's token (none: /auth, by its key pair). */
const answer =
  (id: string, line: string, who: Who = 'app') =>
  (x: RecordedExchange): boolean => {
    const rec = pass(id);
    if (line === 'GET /auth') return new URL(x.request.url).searchParams.get('key') === rec.config[who]!.key;
    return requestOf(x).line === line && requestOf(x).token === issuedToken(rec.exchanges, rec.config[who]!.key);
  };
/** An answer's data changed: a list's records by index, or the one record. */
const data = (change: (d: Rec, i: number) => unknown) => (json: unknown) => {
  const j = json as { data: Rec[] | Rec };
  return { ...j, data: Array.isArray(j.data) ? j.data.map(change) : change(j.data, 0) };
};
const first = (fields: Rec) => data((r, i) => (i === 0 ? { ...r, ...fields } : r));
/** A list padded with copies of its first record to `length` records, the last of them with `fields`. */
const padded = (length: number, fields: Rec) => (json: unknown) => {
  const j = json as { data: Rec[] };
  const data = Array.from({ length }, (_, i) => j.data[i] ?? { ...j.data[0], id: 7000 + i });
  data[length - 1] = { ...data[length - 1], ...fields };
  return { ...j, data };
};
const refused = () => ({ status: 'ERROR', code: 401, msg: 'Application authentication error' });

/** A pass recording with answers changed in turn: [line, who, change, status?]. */
function changed(
  id: string,
  changes: Array<[string, Who, (json: unknown) => unknown, number?]>,
  exchanges = pass(id).exchanges,
): RecordedExchange[] {
  return changes.reduce(
    (xs, [line, who, change, status]) => withAnswers(xs, answer(id, line, who), change, status),
    [...exchanges],
  );
}
const run = (id: string, exchanges: RecordedExchange[], config: Config = pass(id).config) =>
  replay(check(id), config, exchanges);

const lead = (n: number) =>
  `${n} place${n > 1 ? 's' : ''} where a response carries a credential (only /auth's app_secret, app_key and app_token may): `;
const SEC02 =
  "records should carry no credential material (judgement: named by the field's name or a password-hash value; what it holds is not shown): ";
const HASH = `$2b$12$${'a'.repeat(53)}`;

describe('SEC-01: each place, each credential, listed in the order read', () => {
  const c = () => pass('SEC-01').config;

  test("app's lists, app's details, then other_app's answers: each place once", async () => {
    const r = await run(
      'SEC-01',
      changed('SEC-01', [
        ['GET /seats', 'app', first({ remark: c().app.key })],
        ['GET /dishes/104', 'app', first({ note: c().app.secret })],
        ['GET /seats', 'other_app', first({ remark: c().other_app!.secret })],
      ]),
    );
    expect(r.message).toBe(
      `${lead(3)}GET /seats carries app's secret key in data[0].remark; GET /dishes/104 carries app's public key in data.note; GET /seats (other_app) carries other_app's public key in data[0].remark`,
    );
  });

  test('five places are all listed; a sixth is counted', async () => {
    const six = { l1: c().app.key, l2: c().app.key, l3: c().app.key, l4: c().app.key, l5: c().app.key };
    const places = (n: number) =>
      Array.from({ length: n }, (_, i) => `GET /dishes/104 carries app's secret key in data.l${i + 1}`);
    const five = await run('SEC-01', changed('SEC-01', [['GET /dishes/104', 'app', first(six)]]));
    expect(five.message).toBe(`${lead(5)}${places(5).join('; ')}`);
    const more = await run(
      'SEC-01',
      changed('SEC-01', [['GET /dishes/104', 'app', first({ ...six, l6: c().app.key })]]),
    );
    expect(more.message).toBe(`${lead(6)}${places(5).join('; ')}; … and 1 more`);
    expect(more.fingerprints).toHaveLength(6);
  });

  test("the disabled application's keys, in a nested object, under any member name; a key with pattern characters", async () => {
    const disabled = { ...c().disabled_app!, token: 'tok.(disabled)+1' };
    const r = await run(
      'SEC-01',
      changed('SEC-01', [
        ['GET /seats/12', 'app', first({ extra: { a: disabled.secret, undefined: disabled.key } })],
        ['GET /seats/13', 'app', first({ note: disabled.token })],
      ]),
      { ...c(), disabled_app: disabled },
    );
    expect(r.message).toBe(
      `${lead(3)}GET /seats/12 carries disabled_app's public key in data.extra.a; GET /seats/12 carries disabled_app's secret key in data.extra.undefined; GET /seats/13 carries disabled_app's token in data.note`,
    );
    expect(r.fingerprints).toEqual([
      'GET /seats/:id data.extra.a',
      'GET /seats/:id data.extra.undefined',
      'GET /seats/:id data.note',
    ]);
  });

  test('a credential of four characters is looked for; shorter ones are not (they are words as much as keys)', async () => {
    const four = await run('SEC-01', changed('SEC-01', [['GET /orders', 'app', first({ remark: 'tk42' })]]), {
      ...c(),
      disabled_app: { ...c().disabled_app!, token: 'tk42' },
    });
    expect(four.message).toBe(`${lead(1)}GET /orders carries disabled_app's token in data[0].remark`);
    // "ck" is in a dish's name ("Peking duck (half)"): a key that short is not looked for.
    const short = await run('SEC-01', pass('SEC-01').exchanges, {
      ...c(),
      disabled_app: { ...c().disabled_app!, token: 'ck' },
    });
    expect(short.status).toBe('passed');
  });

  test('the eleventh record of a list: one fingerprint for the member of every record', async () => {
    const r = await run('SEC-01', changed('SEC-01', [['GET /orders', 'app', padded(11, { remark: c().app.key })]]));
    expect(r.message).toBe(`${lead(1)}GET /orders carries app's secret key in data[10].remark`);
    expect(r.fingerprints).toEqual(['GET /orders data[].remark']);
  });

  test('a list of 2,000 records (read in the shared pass): a key in its last record', async () => {
    const r = await run('SEC-01', changed('SEC-01', [['GET /orders', 'app', padded(2000, { remark: c().app.key })]]));
    expect(r.message).toBe(`${lead(1)}GET /orders carries app's secret key in data[1999].remark`);
  });

  test('a key after a field named like a secret is still found (the cheap look does not stop at the name)', async () => {
    const r = await run(
      'SEC-01',
      changed('SEC-01', [['GET /seats', 'other_app', first({ remark: c().app.key, client_secret: 'x' })]]),
    );
    expect(r.message).toBe(`${lead(1)}GET /seats (other_app) carries app's secret key in data[0].remark`);
  });

  test("/auth may echo its own application's pair only, in its own fields; no other answer may", async () => {
    const otherAuth = await run(
      'SEC-01',
      changed('SEC-01', [['GET /auth', 'other_app', data((d) => ({ ...d, app_key: c().app.key }))]]),
    );
    expect(otherAuth.message).toBe(`${lead(1)}GET /auth (other_app) carries app's secret key in data.app_key`);
    const detail = await run(
      'SEC-01',
      changed('SEC-01', [['GET /dishes/104', 'app', first({ app_key: c().app.key })]]),
    );
    expect(detail.message).toBe(`${lead(1)}GET /dishes/104 carries app's secret key in data.app_key`);
  });

  test("with the run's tokens known (another check got them first), /auth's app_token is its own; elsewhere a leak", async () => {
    const rec = pass('SEC-01');
    const token = issuedToken(rec.exchanges, rec.config.app.key);
    const sequentially = async (exchanges: RecordedExchange[]) => {
      const { records } = await runChecks(
        rec.config,
        [check('AUTH-05'), check('SEC-01')],
        (r) => new RecordedSource(exchanges, rec.config.base_url, r),
        { sequential: true },
      );
      return records.find((x) => x.id === 'SEC-01')!;
    };
    expect((await sequentially(rec.exchanges)).status).toBe('passed');
    const leaked = await sequentially(changed('SEC-01', [['GET /seats', 'other_app', first({ remark: token })]]));
    expect(leaked.message).toBe(`${lead(1)}GET /seats (other_app) carries a token issued to app in data[0].remark`);
  });

  test("SEC-02's look first, then SEC-01's with the tokens issued since: SEC-01 looks again for them", async () => {
    const rec = pass('SEC-01');
    const token = issuedToken(rec.exchanges, rec.config.app.key);
    const exchanges = changed('SEC-01', [['GET /dishes', 'other_app', first({ remark: token })]]);
    const { records } = await runChecks(
      rec.config,
      [check('SEC-02'), check('SEC-01')],
      (r) => new RecordedSource(exchanges, rec.config.base_url, r),
      { sequential: true },
    );
    expect(records.find((x) => x.id === 'SEC-02')!.status).toBe('passed');
    expect(records.find((x) => x.id === 'SEC-01')!.message).toBe(
      `${lead(1)}GET /dishes (other_app) carries a token issued to app in data[0].remark`,
    );
  });
});

describe('SEC-01, SEC-02: the applications configured, and the answers they cannot read', () => {
  test('with no other_app and no disabled_app, only app is read, its details too', async () => {
    const { other_app: _o, disabled_app: _d, ...config } = pass('SEC-01').config;
    const r = await run(
      'SEC-01',
      changed('SEC-01', [['GET /dishes/104', 'app', first({ note: config.app.key })]]),
      config as Config,
    );
    expect(r.message).toBe(`${lead(1)}GET /dishes/104 carries app's secret key in data.note`);
  });

  test("other_app's /auth refused: what needs its token is noted as not read; the refusal itself is not judged", async () => {
    const c = pass('SEC-01').config;
    const r = await run(
      'SEC-01',
      changed('SEC-01', [
        ['GET /auth', 'other_app', () => ({ ...refused(), msg: `no such key ${c.other_app!.key}` }), 401],
      ]),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(
      'GET /merchant (other_app) not read: no token for other_app: /auth answered status "ERROR", code 401 (HTTP 401) (see AUTH-02)',
    );
    expect(r.notes).toHaveLength(4);
  });

  test('an answer that never came (a reset connection) is no note: the check cannot judge', async () => {
    const reset = pass('SEC-01').exchanges.map((x) => {
      if (!answer('SEC-01', 'GET /orders')(x)) return x;
      const { response: _, ...request } = x;
      return { ...request, error: 'socket hang up' };
    });
    const r = await run('SEC-01', reset);
    expect(r.status).not.toBe('passed');
    expect(r.message).toContain('socket hang up');
    expect(r.notes).toEqual([]);
  });

  test("app's /dishes refused: its details cannot be listed, the seats' are still read", async () => {
    const c = pass('SEC-01').config;
    const r = await run(
      'SEC-01',
      changed('SEC-01', [
        ['GET /dishes', 'app', refused, 401],
        ['GET /seats/11', 'app', first({ note: c.app.key })],
      ]),
    );
    expect(r.message).toBe(`${lead(1)}GET /seats/11 carries app's secret key in data.note`);
  });

  test('no successful answer at all: blocked, naming the checks that report why', async () => {
    for (const id of ['SEC-01', 'SEC-02']) {
      const { other_app: _, ...config } = pass(id).config;
      const r = await run(id, changed(id, [['GET /auth', 'app', refused, 401]]), config as Config);
      expect(r.status, id).not.toBe('passed');
      expect(r.message, id).toContain('no successful answer to read (see AUTH-01, AUTH-05)');
    }
  });

  test('keys too short to look for: nothing to find in data, and SEC-02 still judges names and hashes', async () => {
    const rec = pass('SEC-02');
    const c = rec.config;
    const short = { app: { secret: 'pa', key: 'ck' }, other_app: { secret: 'pb', key: 'kb' } };
    const { disabled_app: _, ...rest } = c;
    const config = { ...rest, ...short } as Config;
    const exchanges = changed('SEC-02', [['GET /orders', 'app', first({ note: HASH })]]).map((x) => ({
      ...x,
      request: {
        ...x.request,
        url: x.request.url
          .replace(c.app.secret, short.app.secret)
          .replace(c.app.key, short.app.key)
          .replace(c.other_app!.secret, short.other_app.secret)
          .replace(c.other_app!.key, short.other_app.key),
      },
    }));
    const sec02 = await run('SEC-02', exchanges, config);
    expect(sec02.message).toBe(`${SEC02}GET /orders data[].note: a password hash`);
    // "ck" is in a dish's name: too short a key to look for.
    expect((await run('SEC-01', exchanges, config)).status).toBe('passed');
  });
});

describe('SEC-02: each kind and place of credential material', () => {
  test('a field named like a secret after a key found in an earlier-read record is still found', async () => {
    const c = pass('SEC-02').config;
    const r = await run(
      'SEC-02',
      changed('SEC-02', [
        [
          'GET /dishes',
          'app',
          data((d, i) => (i === 0 ? { ...d, client_secret: 'x' } : i === 3 ? { ...d, remark: c.app.key } : d)),
        ],
      ]),
    );
    expect(r.message).toBe(`${SEC02}GET /dishes data[].client_secret: a field named like credential material`);
  });

  test('a named field that is null passes; app_token outside /auth, a hash in a list of strings and in the eleventh record fail', async () => {
    const none = await run('SEC-02', changed('SEC-02', [['GET /seats', 'app', first({ client_secret: null })]]));
    expect(none.status).toBe('passed');
    const r = await run(
      'SEC-02',
      changed('SEC-02', [
        ['GET /dishes/104', 'app', first({ app_token: 'x' })],
        ['GET /seats/12', 'app', first({ tags: [HASH] })],
        ['GET /orders', 'app', padded(11, { note: HASH })],
      ]),
    );
    expect(r.message).toBe(
      `${SEC02}GET /orders data[].note: a password hash; GET /dishes/:id data.app_token: a field named like credential material; GET /seats/:id data.tags[]: a password hash`,
    );
    expect(r.fingerprints).toEqual([
      'GET /dishes/:id data.app_token',
      'GET /orders data[].note',
      'GET /seats/:id data.tags[]',
    ]);
  });
});
