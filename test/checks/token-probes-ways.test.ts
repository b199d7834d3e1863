/**
 * The generated probes' families (suites/support/token-probes.ts): each way derives what it says from the real
 * token, never the token itself, never a value too short to be a secret, and gives up (undefined) exactly where the
 * token is too short for it; each carrier puts the token where its name says and nowhere else; each path way spells
 * the endpoint as its name says. A wrong derivation would probe a server with the real token (and fail a conforming
 * one) or with a value that proves nothing.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SAFE_SECRET_LENGTH as MIN } from '../../core/redact/redact.js';
import {
  CARRIER_WAYS,
  PATH_WAYS,
  VALUE_WAYS,
  probeRequests,
  waysAt,
  waysPerEndpoint,
} from '../../suites/support/token-probes.js';

const way = (start: string) => {
  const w = VALUE_WAYS.find((v) => v.name.startsWith(start));
  if (!w) throw new Error(`no value way named ${start}`);
  return w;
};

/** A token of distinct characters in both cases and digits: where a value sits in it is unambiguous. */
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

/** Values a way derives from a token, many of them, reproducibly. */
const derived = (name: string, token: string, n = 300): string[] =>
  fc.sample(way(name).arbitrary(token)!, { numRuns: n, seed: 42 });

/** A token of n distinct characters. */
const ofLength = (n: number): string => TOKEN.slice(0, n);

describe('value ways: what each derives from the real token', () => {
  test.each([
    ['a prefix', (v: string) => TOKEN.startsWith(v), ofLength(MIN)],
    ['a suffix', (v: string) => TOKEN.endsWith(v), ofLength(MIN + 1).slice(1)],
  ])(
    '%s: of the token, shorter than it, never shorter than a secret, both ends of the range reached',
    (name, of, shortest) => {
      const values = derived(name, TOKEN);
      for (const v of values) {
        expect(of(v), v).toBe(true);
        expect(v.length, v).toBeGreaterThanOrEqual(MIN);
        expect(v.length, v).toBeLessThan(TOKEN.length);
      }
      const lengths = values.map((v) => v.length);
      expect([Math.min(...lengths), Math.max(...lengths)]).toEqual([MIN, TOKEN.length - 1]);
      expect(way(name).arbitrary(ofLength(MIN))).toBeUndefined();
      // The shortest token it applies to: the one value of a secret's length.
      expect(derived(name, ofLength(MIN + 1), 20)).toEqual(Array(20).fill(shortest));
    },
  );

  test('characters added around it: the whole token inside something longer', () => {
    for (const v of derived('the real token with characters added', TOKEN)) {
      expect(v.includes(TOKEN), v).toBe(true);
      expect(v.length, v).toBeGreaterThan(TOKEN.length);
    }
  });

  test('a part with both ends cut: inside the token, never shorter than a secret', () => {
    const values = derived('a part of the real token', TOKEN);
    for (const v of values) {
      const at = TOKEN.indexOf(v);
      expect(at, v).toBeGreaterThanOrEqual(1);
      expect(at + v.length, v).toBeLessThanOrEqual(TOKEN.length - 1);
      expect(v.length, v).toBeGreaterThanOrEqual(MIN);
    }
    expect(way('a part of the real token').arbitrary(ofLength(MIN + 1))).toBeUndefined();
    // The shortest token with both ends to cut: the one part it has.
    expect(derived('a part of the real token', ofLength(MIN + 2), 20)).toEqual(
      Array(20).fill(ofLength(MIN + 2).slice(1, MIN + 1)),
    );
  });

  test('another letter case: the other cases there are, never the token as it is', () => {
    expect(new Set(derived('the real token in another letter case', TOKEN, 50))).toEqual(
      new Set([TOKEN.toUpperCase(), TOKEN.toLowerCase()]),
    );
    const lower = 'abcdefgh12345678';
    expect(new Set(derived('the real token in another letter case', lower, 50))).toEqual(
      new Set([lower.toUpperCase()]),
    );
    expect(way('the real token in another letter case').arbitrary('1234567890')).toBeUndefined();
  });

  test('a space inside: the token with one space between two of its characters', () => {
    const values = derived('the real token with a space inside', TOKEN);
    for (const v of values) {
      expect(v.replace(' ', ''), v).toBe(TOKEN);
      expect(v.length, v).toBe(TOKEN.length + 1);
      expect(v, v).not.toMatch(/^ | $/);
    }
    expect(derived('the real token with a space inside', 'ab', 10)).toEqual(Array(10).fill('a b'));
    expect(way('the real token with a space inside').arbitrary('a')).toBeUndefined();
  });

  test('one letter or digit changed to another of its own: same length, one place differs', () => {
    for (const t of [TOKEN, 'abababab']) {
      for (const v of derived('the real token with one letter', t)) {
        expect(v.length, v).toBe(t.length);
        const differ = [...v].flatMap((c, i) => (c !== t[i] ? [i] : []));
        expect(differ, v).toHaveLength(1);
        expect(t.includes(v[differ[0]!]!), v).toBe(true);
      }
    }
    expect(way('the real token with one letter').arbitrary('aaaaaaaa')).toBeUndefined();
  });
});

describe('carriers: the real token where the name says, and in no header', () => {
  const byName = (start: string) => CARRIER_WAYS.find((w) => w.name.startsWith(start))!;

  test.each([
    ['the real token in the query string as open-token', { path: '/seats', query: { 'open-token': 'T0k3n' } }],
    ['the real token in the query string as token', { path: '/seats', query: { token: 'T0k3n' } }],
    ['the real token in an Authorization', { path: '/seats', headers: { authorization: 'Bearer T0k3n' } }],
    ['the real token in a cookie', { path: '/seats', headers: { cookie: 'open-token=T0k3n' } }],
  ])('%s', (name, request) => {
    expect(byName(name).request('/seats', 'T0k3n')).toEqual(request);
  });
});

describe('path ways: the endpoint as a router may spell it', () => {
  test.each([
    ['/dishes/101', ['/dishes/101/', '//dishes/101', '/DISHES/101', '/%64ishes/101']],
    ['/orders', ['/orders/', '//orders', '/ORDERS', '/%6Frders']],
  ])('%s', (path, variants) => {
    expect(PATH_WAYS.map((w) => w.path(path))).toEqual(variants);
  });
});

describe('how many ways each endpoint probes', () => {
  test('one way of each family per 50 fuzz runs, at least one', () => {
    expect([0, 50, 51, 100, 300, 301].map(waysPerEndpoint)).toEqual([1, 1, 2, 2, 6, 7]);
  });

  test("an endpoint's ways start at its own index and go on from there", () => {
    expect(waysAt(['a', 'b', 'c', 'd'], 2, 100)).toEqual(['c', 'd']);
    expect(waysAt(['a', 'b', 'c', 'd'], 3, 150)).toEqual(['d', 'a', 'b']);
  });

  test('the extra requests: every way of every family somewhere by default, more ways per endpoint with more runs', () => {
    // By default one way of each family per endpoint: 7 value ways over 6 endpoints (the 7th to the first), 4
    // carriers and 4 paths.
    expect(probeRequests(50)).toBe(7 + 6 + 6);
    // 300 runs: 6 value ways per endpoint (the 7th again at the first), every carrier and path way at every endpoint.
    expect(probeRequests(300)).toBe(7 + 5 * 6 + 6 * 4 + 6 * 4);
    // From 301 runs every way of every family at every endpoint.
    expect(probeRequests(301)).toBe(6 * (7 + 4 + 4));
  });
});
