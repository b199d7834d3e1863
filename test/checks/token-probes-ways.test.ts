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
  APP_WAYS,
  appFor,
  BARE_WAYS,
  CARRIER_WAYS,
  drawsPerPlace,
  PATH_WAYS,
  placeIndex,
  VALUE_WAYS,
  probeRequests,
} from '../../suites/support/token-probes.js';
import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { AUTH_SCHEME } from '../../core/spec/auth-scheme.js';

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
  // The names and the places follow the auth seam (core/spec/auth-scheme.ts): open-token's, or Bearer's after a switch.
  const { carrier, otherCarrier } = AUTH_SCHEME;
  const byName = (start: string) => CARRIER_WAYS.find((w) => w.name.startsWith(start))!;

  test.each([
    [
      `the real token in the query string as ${carrier.param},`,
      { path: '/seats', query: { [carrier.param]: 'T0k3n' } },
    ],
    ['the real token in the query string as token,', { path: '/seats', query: { token: 'T0k3n' } }],
    [
      `the real token in a cookie named ${carrier.param},`,
      { path: '/seats', headers: { cookie: `${carrier.param}=T0k3n` } },
    ],
  ])('%s', (name, request) => {
    expect(byName(name).request('/seats', 'T0k3n')).toEqual(request);
  });

  test(`the real token in an ${otherCarrier.name} header: that header alone, and not as the scheme carries it`, () => {
    const request = byName(`the real token in an ${otherCarrier.name} header`).request('/seats', 'T0k3n');
    expect(Object.keys(request).sort()).toEqual(['headers', 'path']);
    expect(Object.keys(request.headers ?? {})).toHaveLength(1);
    expect(otherCarrier.tokenOf(request.headers!)).toBe('T0k3n');
    expect(AUTH_SCHEME.tokenOf(request.headers!)).toBeUndefined();
  });

  test('four carriers, each named once', () => {
    expect(new Set(CARRIER_WAYS.map((w) => w.name)).size).toBe(4);
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

describe('the covering design: every way at every place, every way from every application', () => {
  const apps = ['app', 'other_app', 'disabled_app'] as const;
  const places = DATA_ENDPOINTS.flatMap((_, i) => [placeIndex(i), ...PATH_WAYS.map((_, v) => placeIndex(i, v))]);

  test('the places are numbered 0–29 once each, the six endpoints first', () => {
    expect([...places].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(DATA_ENDPOINTS.map((_, i) => placeIndex(i))).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test.each([3, 2, 1])(
    'with %i applications, each takes every way at every endpoint and at two or more of the six',
    (n) => {
      const turn = apps.slice(0, n);
      APP_WAYS.forEach((_, k) => {
        for (const a of turn) {
          // Among the six endpoints themselves.
          const at = DATA_ENDPOINTS.filter((_, i) => appFor(turn, k, placeIndex(i)) === a);
          expect(at.length, `way ${k}, ${a}`).toBeGreaterThanOrEqual(2);
          // Among the five places of every endpoint.
          DATA_ENDPOINTS.forEach((_, i) => {
            const own = [placeIndex(i), ...PATH_WAYS.map((_, v) => placeIndex(i, v))].map((p) => appFor(turn, k, p));
            expect(own, `way ${k}, endpoint ${i}`).toContain(a);
          });
        }
      });
    },
  );

  test('the requests: every way at every place, the generated ones drawn more often with more fuzz runs', () => {
    const perPlace = BARE_WAYS.length + APP_WAYS.length;
    expect(APP_WAYS.length).toBe(2 + VALUE_WAYS.length + CARRIER_WAYS.length);
    // 6 endpoints × 5 places × 16 ways, and the disabled token at the 24 path ways.
    expect(probeRequests(50)).toBe(6 * 5 * perPlace + 24);
    expect(probeRequests(50, false)).toBe(6 * 5 * perPlace);
    expect([0, 50, 51, 100, 300, 301].map(drawsPerPlace)).toEqual([1, 1, 2, 2, 6, 7]);
    // More runs draw more values of the 7 value ways and the unrelated value: no way more, no place more.
    expect(probeRequests(100) - probeRequests(50)).toBe(6 * 5 * 8);
  });
});

describe('ways that need no token', () => {
  test('no header, an empty one, and a value as long as the longest token sharing no run of four with any', () => {
    expect(BARE_WAYS.map((w) => w.value([TOKEN]))[0]).toBeUndefined();
    expect(BARE_WAYS[1]!.value([TOKEN])).toBe('');
    const other = 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';
    const arb = BARE_WAYS[2]!.value([TOKEN, other]) as fc.Arbitrary<string>;
    const values = fc.sample(arb, { numRuns: 100, seed: 7 });
    for (const v of values) {
      expect(v.length, v).toBe(other.length);
      for (let i = 0; i + 4 <= v.length; i++) {
        expect(TOKEN.includes(v.slice(i, i + 4)), v).toBe(false);
        expect(other.includes(v.slice(i, i + 4)), v).toBe(false);
      }
    }
  });
});
