import fc from 'fast-check';
import type { RequestSpec } from '../../core/transport/exchange.js';
import { SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { AUTH_SCHEME, TOKEN_HEADER } from '../../core/spec/auth-scheme.js';

/**
 * Wrong credentials generated from the real ones (§4 rule 4, §5.3, §5.4): not a few hand-picked values, but every way
 * a server's token check can be too lenient, each drawn by fast-check from the token the run was issued, so a server
 * never seen before is probed where its check would give way: a prefix or a suffix of the token, a part of it, a
 * value that contains it, the token in another letter case or with a space inside, the token in another carrier
 * than the open-token header, and the endpoint at a path a router may treat as the same.
 *
 * Every run sends every way at every place (each data endpoint and each path way of it), derived from one
 * configured application's credentials by a covering design ({@link appFor}); fast-check draws the generated values,
 * one per way and place by default, more with more fuzz runs ({@link drawsPerPlace}).
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

/** A spelling of the endpoint's path that a router may serve as the same endpoint: without a valid token, never data. */
export interface PathWay {
  kind: 'path';
  name: string;
  path(path: string): string;
}

/** Letters and digits a token may be joined with: nothing a header or a shell treats specially. */
const JOIN = fc.string({ unit: fc.constantFrom(...'abcxyzABCXYZ0189-_.'), minLength: 1, maxLength: 6 });

/** The shortest derived value: shorter ones are words as much as secrets, and cannot be redacted everywhere. */
const MIN = SAFE_SECRET_LENGTH;

/** Wrong tokens derived from the real one, drawn by fast-check: every run sends each at every place. */
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
      if (new Set(own.map((c) => c.toLowerCase())).size < 2) return undefined;
      return (
        fc
          .tuple(fc.constantFrom(...at), fc.constantFrom(...own))
          // Another letter, not the same one in another case: that is the letter-case way's (and a mutant that takes
          // either would be caught by chance of the token's letters).
          .filter(([i, c]) => t[i]!.toLowerCase() !== c.toLowerCase())
          .map(([i, c]) => `${t.slice(0, i)}${c}${t.slice(i + 1)}`)
      );
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
// Given only §4's data paths, which all start with "/" and a letter: the first such pair is at the start.
const encodeFirstLetter = (p: string): string =>
  p.replace(/\/([A-Za-z])/, (_, c: string) => `/%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The endpoint's path spelt as a router may also accept it: every way of the token rule is sent there too. */
export const PATH_WAYS: PathWay[] = [
  { kind: 'path', name: 'the path with a trailing slash', path: (p) => `${p}/` },
  { kind: 'path', name: 'the path after a doubled slash', path: (p) => `/${p}` },
  { kind: 'path', name: 'the path in upper case', path: (p) => p.toUpperCase() },
  { kind: 'path', name: 'the path with its first letter percent-encoded', path: encodeFirstLetter },
];

/**
 * The token rule's places of one data endpoint, in the order a UNAUTH check sends them: the endpoint as §4 spells
 * it, then the endpoint at each path way (a spelling a router may serve as the same endpoint).
 */
export const PLACES_PER_ENDPOINT = 1 + PATH_WAYS.length;

/**
 * The index of a place among all the token rule's GET places: the six endpoints first (0–5, in §4's order), then
 * each endpoint's path ways (6 + 4 × endpoint + the path way's index). `pathWay` is undefined for the endpoint itself.
 */
export function placeIndex(endpoint: number, pathWay?: number): number {
  return pathWay === undefined ? endpoint : DATA_ENDPOINTS.length + endpoint * PATH_WAYS.length + pathWay;
}

/** An application whose credentials a wrong token is derived from (§5: each configured application has its own). */
export type ProbeApp = 'app' | 'other_app' | 'disabled_app';

/**
 * Ways that need no application's token: the same request stands for every application (it carries nothing of
 * any). `value` gives the header's value (undefined: no header), from the tokens the run knows; a generated one is
 * an arbitrary.
 */
export interface BareWay {
  kind: 'bare';
  name: string;
  value(tokens: readonly string[]): string | undefined | fc.Arbitrary<string>;
}

/** A hand-picked wrong token derived from an application's credentials: its token or its secret key. */
export interface FixedWay {
  kind: 'fixed';
  name: string;
  /** The value sent in the header; undefined when this application lacks what the way needs (a secret key). */
  value(cred: { token: string; key?: string }): string | undefined;
}

/** Letters and digits: a value of them shares no character class a format check could tell from a token's. */
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Every run of `n` characters of the strings: a value with none of them shares nothing with any (one pass each). */
function runsOf(strings: readonly string[], n: number): Set<string> {
  const runs = new Set<string>();
  for (const t of strings) for (let i = 0; i + n <= t.length; i++) runs.add(t.slice(i, i + n));
  return runs;
}

/** The unrelated value's length at most: a token of 8,000 characters needs no value as long to be told from it. */
const UNRELATED_MAX = 256;

/** The ways no application's token is needed for (§5.4: no valid credential), sent at every place. */
export const BARE_WAYS: BareWay[] = [
  { kind: 'bare', name: `no ${TOKEN_HEADER} header`, value: () => undefined },
  { kind: 'bare', name: `an empty ${TOKEN_HEADER} header`, value: () => '' },
  {
    // What a check of presence alone (any value) takes: as long as the token (up to 256 characters), of letters and
    // digits, and sharing no run of four characters with any token the run knows (so it is no derivation of one).
    kind: 'bare',
    name: 'a value that shares nothing with any token',
    value: (tokens) => {
      const length = Math.min(UNRELATED_MAX, Math.max(MIN, ...tokens.map((t) => t.length)));
      const runs = runsOf(tokens, 4);
      return fc
        .string({ unit: fc.constantFrom(...ALNUM), minLength: length, maxLength: length })
        .filter((v) => ![...runsOf([v], 4)].some((r) => runs.has(r)));
    },
  },
];

/** The hand-picked wrong tokens, derived from each application's credentials. */
export const FIXED_WAYS: FixedWay[] = [
  {
    // '~' as the new last character, so a report's curl line can rebuild it as "${OPEN_TOKEN%?}~" (reporters/evidence.ts).
    kind: 'fixed',
    name: 'the real token with its last character changed',
    value: ({ token }) => token.slice(0, -1) + (token.endsWith('~') ? '-' : '~'),
  },
  { kind: 'fixed', name: 'the application secret key sent as the token', value: ({ key }) => key },
];

/** Every way derived from an application's credentials, in the order of the design (the index `way` of appFor). */
export const APP_WAYS: ReadonlyArray<FixedWay | ValueWay | CarrierWay> = [
  ...FIXED_WAYS,
  ...VALUE_WAYS,
  ...CARRIER_WAYS,
];

/**
 * The covering design of the token rule (docs/rules.md says it): every way is sent at every place in every run,
 * each time derived from one application's credentials, the application turning with the place: way `way` at place
 * `place` (placeIndex) starts from `apps[(way + place) % apps.length]`. So every way × place pair is probed, and
 * every way × application pair: at the six endpoints (places 0–5) each application takes each way at two of them
 * (three with two applications), and among any one endpoint's five places (the endpoint and its four path ways)
 * every application takes every way (places i, 6 + 4i, …, 9 + 4i hold every remainder mod 3 and mod 2).
 */
export function appFor<A>(apps: readonly A[], way: number, place: number): A {
  return apps[(way + place) % apps.length]!;
}

/** The applications a design turns over, from what is configured: app, other_app, and disabled_app's earlier token. */
export function probeApps(config: { other_app?: unknown; disabled_app?: { token?: string } }): ProbeApp[] {
  return [
    'app',
    ...(config.other_app ? ['other_app' as const] : []),
    ...(config.disabled_app?.token ? ['disabled_app' as const] : []),
  ];
}

/** Fuzz runs that buy one more generated value for each generated way at each place: 50 (the default) buys one. */
export const RUNS_PER_WAY = 50;

/**
 * How many values a generated way (a value way, the unrelated value) draws at each place: one in every run, one more
 * per 50 fuzz runs begun. The product of ways × places is sent whatever the runs; only the draws grow.
 */
export const drawsPerPlace = (fuzzRuns: number): number => Math.max(1, Math.ceil(fuzzRuns / RUNS_PER_WAY));

/**
 * Requests the UNAUTH-* checks send: every way at every place of every data endpoint (the generated ones
 * `drawsPerPlace` times), and the disabled application's earlier token at each path way when it is configured
 * (AUTH-10 sends it to the endpoints themselves).
 */
export function probeRequests(fuzzRuns: number, disabledToken = true): number {
  const generated = VALUE_WAYS.length + 1;
  const perPlace = BARE_WAYS.length + APP_WAYS.length + generated * (drawsPerPlace(fuzzRuns) - 1);
  return DATA_ENDPOINTS.length * (PLACES_PER_ENDPOINT * perPlace + (disabledToken ? PATH_WAYS.length : 0));
}

/**
 * The request count of a default run (#35): the demo run (the reference server, default settings, seed 1) sent 231
 * requests before every way was sent at every place; test/rules.test.ts runs it and holds it to `max` (what the
 * design adds, ERR-04's wrong token at each data endpoint for app and other_app and RO-02's second GET of each
 * data endpoint, and a few requests of slack). +20 (709 → 729, h35e): the errors of §7 provoked with other_app's
 * token (an unknown interface, two unknown ids of each detail, /auth without its key pair, the three lists with query
 * parameters; no token at its two detail ids) and with the disabled application's (the same but no token at ids; its
 * refusals at 2–7 are AUTH-10's, now shared), every one a refusal sent at once. +125 (h35f): RO-01's unsafe methods
 * without a token and with other_app's, and the GETs after each round (about 74); AUTH-07's key pairs of every
 * application cut, respelled and padded (about 24); AUTH-06, AUTH-08, AUTH-09 and AUTH-10 with every application's
 * credentials and the disabled keys at each data endpoint (14); TRANS-03 at every endpoint (6); other_app's data
 * endpoints asked again (RO-02, AUTH-05). +6 (h35d): FUZZ-01 asks merchant B's dish and seat detail endpoints 3 fixed
 * ids each with other_app's token (suites/fuzz.ts FIXED_WAYS); other_app's lists and details are otherwise read by the
 * checks that already asked them. +9: AUTH-07's public key of each application cut, respelled and padded. The figure
 * is set from a measured run after all of them. +6 (880 → 886, h35b): AUTH-06 sends each configured key pair (app,
 * other_app, disabled_app in the demo) in a GET /auth body, as JSON and as a form, with none in the query.
 */
export const REQUEST_BUDGET = { seed: 1, before: 231, max: 886 } as const;
