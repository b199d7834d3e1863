/**
 * The shape judgement (core/model/assertions.ts: expectShape, expectShapes, their fingerprints and the note of
 * extra fields) and expectError, through the checks that use them: a recorded pass with one answer changed.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers, withBodies } from './altered.js';

type Rec = Record<string, unknown>;
const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

/** Replays a check's recorded pass with the data of app's answer to `line` replaced. */
async function withData(id: string, line: string, change: (data: unknown) => unknown) {
  const rec = recordingsOf(id).pass!;
  const token = issuedToken(rec.exchanges, rec.config.app.key);
  const chosen = (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line && requestOf(x).token === token;
  const exchanges = withAnswers(rec.exchanges, chosen, (json) => ({
    ...(json as Rec),
    data: change(structuredClone((json as { data: unknown }).data)),
  }));
  return replay(check(id), rec.config, exchanges);
}

const fields = (prefix: string, n: number): Rec =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
const extraNote = (what: string, names: string[], more = '') =>
  `${what}: fields the spec does not list (allowed): ${names.join(', ')}${more}`;

describe('DISH-01: a list with more problems than are listed', () => {
  test('past 20 problems, records are counted, not listed, and the counted ones share one fingerprint', async () => {
    const r = await withData('DISH-01', 'GET /dishes', (data) => {
      const [good] = data as Rec[];
      const broken: Rec[] = Array.from({ length: 25 }, (_, i) => ({ ...good, id: 1000 + i, price: 'x' }));
      // The 20th broken record has three problems, of which one is listed: the list stops at 20.
      broken[19] = { ...broken[19], stock: 'y', unit: 5 };
      return [good, ...broken, { ...good, id: 2000 }];
    });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^GET \/dishes does not match the dish shape \(25 of 27 records with problems\): /);
    expect(r.fingerprints).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `dish:${1000 + i}/price`).sort(),
      'dish:more-records',
    ]);
  });

  test('ids in fingerprints: past the tenth record, an id that is no id, none, one cut at 200 characters', async () => {
    const long = 'i'.repeat(201);
    const r = await withData('DISH-01', 'GET /dishes', (data) => {
      const [good] = data as Rec[];
      const fillers = Array.from({ length: 10 }, (_, i) => ({ ...good, id: 300 + i }));
      return [
        ...fillers,
        { ...good, id: 777, price: 'x' },
        { ...good, id: 'i'.repeat(200) },
        { ...good, id: long },
        { ...good, id: { n: 1 } },
        null,
      ];
    });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^GET \/dishes does not match the dish shape \(5 problems\): /);
    expect(r.fingerprints).toEqual(
      ['dish:777/price', `dish:${'i'.repeat(200)}/id`, `dish:${'i'.repeat(200)}…/id`, 'dish:#13/id', 'dish:#14'].sort(),
    );
  });
});

describe('ORD-01: one record with more than 20 problems', () => {
  test('is counted as one record', async () => {
    const r = await withData('ORD-01', 'GET /orders', (data) => {
      const order = (data as Array<Rec & { dishes: Rec[] }>)[0]!;
      return [
        { ...order, dishes: Array.from({ length: 25 }, (_, i) => ({ ...order.dishes[0], id: 100 + i, price: 'x' })) },
      ];
    });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^GET \/orders does not match the order shape \(1 of 1 record with problems\): /);
  });
});

describe('MER-01: one record', () => {
  test('data that is no object has the fingerprint of the record itself; two problems are plural', async () => {
    const scalar = await withData('MER-01', 'GET /merchant', () => 5);
    expect(scalar.message).toMatch(/^GET \/merchant does not match the merchant shape \(1 problem\): /);
    expect(scalar.fingerprints).toEqual(['merchant/']);
    const two = await withData('MER-01', 'GET /merchant', (d) => ({ ...(d as Rec), id: 'x', name: 5 }));
    expect(two.message).toMatch(/^GET \/merchant does not match the merchant shape \(2 problems\): /);
    expect(two.fingerprints).toEqual(['merchant/id', 'merchant/name']);
  });

  test("fields the spec does not list are noted under data's path", async () => {
    const r = await withData('MER-01', 'GET /merchant', (d) => ({ ...(d as Rec), tier: 'gold' }));
    expect(r.status).toBe('passed');
    expect(r.notes).toContain(extraNote('GET /merchant', ['data.tier']));
  });
});

describe('DISH-01: the note of fields the spec does not list', () => {
  const named = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `data[].${prefix}${i}`);
  const noted = async (extras: Rec[]) => {
    const r = await withData('DISH-01', 'GET /dishes', (data) => {
      const [good] = data as Rec[];
      return extras.map((e, i) => ({ ...good, id: 500 + i, ...e }));
    });
    expect(r.status).toBe('passed');
    return r.notes.filter((n) => n.startsWith('GET /dishes:'));
  };

  test('ten are all named; eleven say one more', async () => {
    expect(await noted([fields('a', 10)])).toEqual([extraNote('GET /dishes', named('a', 10))]);
    expect(await noted([fields('a', 11)])).toEqual([extraNote('GET /dishes', named('a', 10), ' and 1 more')]);
  });

  test('a hundred are counted exactly; past a hundred, no more records are read for them', async () => {
    expect(await noted([fields('a', 100)])).toEqual([extraNote('GET /dishes', named('a', 10), ' and 90 more')]);
    expect(await noted([fields('a', 100), fields('b', 10), fields('c', 5)])).toEqual([
      extraNote('GET /dishes', named('a', 10), ' and 100+ more'),
    ]);
  });
});

describe('AUTH-06: expectError', () => {
  const starting = (line: string) => (x: Parameters<typeof requestOf>[0]) => requestOf(x).line.startsWith(line);

  test('JSON that is no object is no error envelope', async () => {
    const rec = recordingsOf('AUTH-06').pass!;
    const r = await replay(
      check('AUTH-06'),
      rec.config,
      withBodies(rec.exchanges, starting('GET /auth?secret='), () => '[]'),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      /^GET \/auth without key: expected an error envelope with code 400 or 401, got HTTP 400 with JSON that is not an object \(\[\]\)/,
    );
  });

  test('a refusal over HTTP 200 is not noted: 200 is one of the two statuses §7 allows', async () => {
    const rec = recordingsOf('AUTH-06').pass!;
    const r = await replay(
      check('AUTH-06'),
      rec.config,
      withAnswers(rec.exchanges, starting('GET /auth?secret='), (j) => j, 200),
    );
    expect(r.status).toBe('passed');
    expect(r.notes.filter((n) => n.includes('with envelope code'))).toEqual([]);
  });
});
