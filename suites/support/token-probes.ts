import fc from 'fast-check';
import type { RequestSpec } from '../../core/transport/exchange.js';
import { SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { AUTH_SCHEME } from '../../core/spec/auth-scheme.js';

/**
 * Wrong credentials generated from the real ones (§4 rule 4, §5.3, §5.4): not a few hand-picked values, but every way
 * a server's token check can be too lenient, each drawn by fast-check from the token the run was issued, so a server
 * never seen before is probed where its check would give way: a prefix or a suffix of the token, a part of it, a
 * value that contains it, the token in another letter case or with a space inside, the token in another carrier
 * than the open-token header, and the endpoint at a path a router may treat as the same.
 *
 * Each way is one family; a run probes each endpoint with `perEndpoint` ways of each family, assigned by the
 * endpoint's place in §4 (endpoint i starts at way i), so the six endpoints share out every way of every family in a
 * default run, and a run with more fuzz runs probes every way at every endpoint (see {@link waysPerEndpoint}).
 */

/** A way of deriving a wrong token from the real one: the header then carries it, and §5.4 wants 401. */
export interface ValueWay {
  kind: 'value';
  name: string;
  /** Derived tokens, shrinking towards the simplest; undefined when the token is too short for this way. */
  arbitrary(token: string): fc.Arbitrary<string> | undefined;
}

/** A way of carrying the real token anywhere but the open-token header: no valid credential, §5.4 wants 401. */
export interface CarrierWay {
  kind: 'carrier';
  name: string;
  /**
   * Codes a refusal must have (§5.4: 401), or undefined when any refusal will do: a request with a query string is
   * also one with a query parameter a list endpoint does not take (§4 rule 2), which error that gets is ERR-06's to
   * judge; here only that the token was not taken from it.
   */
  codes?: number[];
  request(path: string, token: string): RequestSpec;
}

/** A spelling of the endpoint's path that a router may serve as the same endpoint: with no token, never data. */
export interface PathWay {
  kind: 'path';
  name: string;
  path(path: string): string;
}

/** Letters and digits a token may be joined with: nothing a header or a shell treats specially. */
const JOIN = fc.string({ unit: fc.constantFrom(...'abcxyzABCXYZ0189-_.'), minLength: 1, maxLength: 6 });

/** The shortest derived value: shorter ones are words as much as secrets, and cannot be redacted everywhere. */
const MIN = SAFE_SECRET_LENGTH;

/** Wrong tokens derived from the real one; each endpoint probes some of them (all seven from --fuzz-runs 301). */
export const VALUE_WAYS: ValueWay[] = [
  {
    kind: 'value',
    name: 'a prefix of the real token',
    arbitrary: (t) =>
      t.length > MIN ? fc.integer({ min: MIN, max: t.length - 1 }).map((k) => t.slice(0, k)) : undefined,
  },
  {
    kind: 'value',
    name: 'a suffix of the real token',
    arbitrary: (t) => (t.length > MIN ? fc.integer({ min: 1, max: t.length - MIN }).map((k) => t.slice(k)) : undefined),
  },
  {
    kind: 'value',
    name: 'the real token with characters added around it',
    arbitrary: (t) =>
      fc
        .tuple(fc.option(JOIN, { nil: '' }), fc.option(JOIN, { nil: '' }))
        .filter(([a, b]) => a + b !== '')
        .map(([a, b]) => `${a}${t}${b}`),
  },
  {
    kind: 'value',
    name: 'a part of the real token (both ends cut)',
    arbitrary: (t) =>
      t.length > MIN + 1
        ? fc
            .integer({ min: 1, max: t.length - MIN - 1 })
            .chain((a) => fc.integer({ min: a + MIN, max: t.length - 1 }).map((b) => t.slice(a, b)))
        : undefined,
  },
  {
    kind: 'value',
    name: 'the real token in another letter case',
    arbitrary: (t) => {
      const other = [t.toUpperCase(), t.toLowerCase()].filter((v) => v !== t);
      return other.length ? fc.constantFrom(...other) : undefined;
    },
  },
  {
    kind: 'value',
    name: 'the real token with a space inside',
    arbitrary: (t) =>
      t.length > 1 ? fc.integer({ min: 1, max: t.length - 1 }).map((k) => `${t.slice(0, k)} ${t.slice(k)}`) : undefined,
  },
  {
    // Same length, same characters: what a check of the token's format alone (not a lookup) or a near match takes.
    kind: 'value',
    name: 'the real token with one letter or digit changed to another of its own',
    arbitrary: (t) => {
      const at = [...t].flatMap((c, i) => (/[A-Za-z0-9]/.test(c) ? [i] : []));
      const own = [...new Set(at.map((i) => t[i]!))];
      if (own.length < 2) return undefined;
      return fc
        .tuple(fc.constantFrom(...at), fc.constantFrom(...own))
        .filter(([i, c]) => t[i] !== c)
        .map(([i, c]) => `${t.slice(0, i)}${c}${t.slice(i + 1)}`);
    },
  },
];

/** The real token in a carrier other than the scheme's, which §4 rule 4 does not allow: the auth seam's list. */
export const CARRIER_WAYS: CarrierWay[] = AUTH_SCHEME.wrongCarriers.map((c) => ({
  kind: 'carrier',
  name: c.name,
  ...(c.codes ? { codes: c.codes } : {}),
  request: (path, token) => ({ path, ...c.carry(token) }),
}));

/** The first letter of the path's first segment, percent-encoded: `/dishes` → `/%64ishes`. */
const encodeFirstLetter = (p: string): string =>
  p.replace(/^\/([A-Za-z])/, (_, c: string) => `/%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The endpoint's path spelt as a router may also accept it, sent with no token. */
export const PATH_WAYS: PathWay[] = [
  { kind: 'path', name: 'the path with a trailing slash', path: (p) => `${p}/` },
  { kind: 'path', name: 'the path after a doubled slash', path: (p) => `/${p}` },
  { kind: 'path', name: 'the path in upper case', path: (p) => p.toUpperCase() },
  { kind: 'path', name: 'the path with its first letter percent-encoded', path: encodeFirstLetter },
];

/** Fuzz runs that buy one more way of each family per endpoint: 50 (the default) probes one way each. */
export const RUNS_PER_WAY = 50;

/**
 * How many ways of each family a run probes at each endpoint, one more per 50 fuzz runs begun: every carrier and path
 * way (four each) at every endpoint from 151 runs on, every value way (seven) from 301 on.
 */
export const waysPerEndpoint = (fuzzRuns: number): number => Math.max(1, Math.ceil(fuzzRuns / RUNS_PER_WAY));

/**
 * The ways of a family a run probes at the endpoint with this index of §4's data endpoints: from its own index on,
 * and a family with more ways than there are endpoints gives the ways past the last endpoint to the first ones (way
 * 7 of a family of 7 to endpoint 1), so a default run probes every way somewhere.
 */
export function waysAt<W>(ways: readonly W[], endpointIndex: number, fuzzRuns: number): W[] {
  const n = Math.min(ways.length, waysPerEndpoint(fuzzRuns));
  const picked = new Set(Array.from({ length: n }, (_, k) => (endpointIndex + k) % ways.length));
  for (let j = endpointIndex + DATA_ENDPOINTS.length; j < ways.length; j += DATA_ENDPOINTS.length) picked.add(j);
  return [...picked].map((j) => ways[j]!);
}

/** Extra requests a run sends for these probes: per endpoint, its ways of each family (for the README's budget). */
export function probeRequests(fuzzRuns: number): number {
  return DATA_ENDPOINTS.reduce(
    (sum, _, i) =>
      sum +
      ([VALUE_WAYS, CARRIER_WAYS, PATH_WAYS] as ReadonlyArray<readonly unknown[]>).reduce(
        (n, ways) => n + waysAt(ways, i, fuzzRuns).length,
        0,
      ),
    0,
  );
}

/**
 * The request budget of a default run (#27): the demo run (the reference server, default settings, seed 1) sent 215
 * requests before the generated probes; a default run may send at most 10 % more. test/rules.test.ts runs it and
 * fails past the budget. #35 (h35c) added 19: ERR-04's wrong token at each data endpoint for app and other_app (12),
 * RO-02's second GET of each data endpoint (6) and RO-03's second /auth of other_app (1).
 */
export const REQUEST_BUDGET = { seed: 1, before: 215, max: 250 } as const;
