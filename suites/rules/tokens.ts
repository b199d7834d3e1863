import { DEFAULTS } from '../../core/config/config.js';
import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import { CARRIER_WAYS, PATH_WAYS, RUNS_PER_WAY, VALUE_WAYS, waysAt } from '../support/token-probes.js';
import {
  at,
  by,
  notProbed,
  probed,
  probedWhen,
  unproven,
  WHY,
  type App,
  type Rule,
  type Way,
  type WaySpec,
} from './model.js';
import { DATA, get, HEADS, PATH_VARIANTS } from './places.js';
import { disabledTokenAt } from './protocol.js';

/**
 * §4 rule 4, §5.3, §5.4 as cells: the token check of every data endpoint, for every way the UNAUTH-* checks probe
 * (the hand-picked wrong values, and the generated families of support/token-probes.ts). Which endpoint probes
 * which generated way in which run is computed from token-probes' own waysAt, so the matrix says what a run sends.
 */

/** The UNAUTH check of a data endpoint, by its index in §4's data endpoints. */
const unauth = (i: number): string => `UNAUTH-${DATA_ENDPOINTS[i]!.name.toUpperCase()}`;

/** The mutants that accept a token the way a generated probe sends it (reference/mutants/credentials.ts). */
export const MUTANTS_OF_WAY: Record<string, string[]> = {
  'a prefix of the real token': ['token-prefix-accepted', 'token-part-accepted'],
  'a suffix of the real token': ['token-part-accepted'],
  'the real token with characters added around it': ['token-contained-accepted'],
  'a part of the real token (both ends cut)': ['token-part-accepted'],
  'the real token in another letter case': ['token-case-insensitive'],
  'the real token with a space inside': ['token-spaces-ignored'],
  'the real token with one letter or digit changed to another of its own': ['token-near-match-accepted'],
  'the real token in the query string as open-token, no header': ['token-from-query'],
  'the real token in the query string as token, no header': ['token-from-query'],
  'the real token in an Authorization: Bearer header, no open-token': ['token-from-bearer'],
  'the real token in a cookie named open-token, no header': ['token-from-cookie'],
  'the path with a trailing slash': ['trailing-slash-unguarded'],
  'the path after a doubled slash': ['doubled-slash-unguarded'],
  'the path in upper case': ['upper-case-path-unguarded'],
  'the path with its first letter percent-encoded': ['percent-encoded-path-unguarded'],
};

/** The tokens a derived way needs (token-probes notes the way not probed for a token without it). */
const TOKEN_NEEDS: Record<string, string> = {
  'a prefix of the real token': `with a token of more than ${SAFE_SECRET_LENGTH} characters`,
  'a suffix of the real token': `with a token of more than ${SAFE_SECRET_LENGTH} characters`,
  'a part of the real token (both ends cut)': `with a token of more than ${SAFE_SECRET_LENGTH + 1} characters`,
  'the real token in another letter case': 'with a token that has letters',
  'the real token with a space inside': 'with a token of 2 characters or more',
  'the real token with one letter or digit changed to another of its own':
    'with a token of two different letters or digits',
};

/** The matrix's way of each generated family's ways. */
const WAY_OF: Record<string, Way> = {
  'a prefix of the real token': 'partial or prefix match',
  'a suffix of the real token': 'partial or prefix match',
  'the real token with characters added around it': 'partial or prefix match',
  'a part of the real token (both ends cut)': 'partial or prefix match',
  'the real token in another letter case': 'case',
  'the real token with a space inside': 'whitespace or encoding',
};

/** The fewest fuzz runs with which the endpoint of this index probes the way (a default run's count or more). */
export function fewestRuns<W>(ways: readonly W[], way: W, endpoint: number): number {
  for (let runs = 1; ; runs += 1) if (waysAt(ways, endpoint, runs).includes(way)) return runs;
}

const DEFAULT_RUNS = DEFAULTS.fuzz_runs;

/** The fewest fuzz runs with which every endpoint probes every way of every family. */
export const EVERY_WAY_FROM_RUNS = Math.max(
  ...[VALUE_WAYS, CARRIER_WAYS, PATH_WAYS].flatMap((ways: ReadonlyArray<{ name: string }>) =>
    ways.flatMap((w) => DATA_ENDPOINTS.map((_, i) => fewestRuns(ways, w, i))),
  ),
);

/** Who the probes start from: app's token only. */
const OTHERS: ReadonlyArray<{ apps: App[]; why: string }> = [
  {
    apps: ['other_app'],
    why: "every wrong token is derived from app's token: a token check that gives way for other_app's token only is not probed",
  },
  {
    apps: ['disabled_app'],
    why: "wrong tokens are not derived from the disabled application's token: its earlier token itself is AUTH-10's",
  },
];

/** The outcome of a generated way at each data endpoint, from the run in which the endpoint probes it. */
function generatedAt<W extends { name: string }>(ways: readonly W[], way: W): WaySpec['at'] {
  const mutants = MUTANTS_OF_WAY[way.name] ?? [];
  const provenAt = DATA_ENDPOINTS.filter((_, i) => fewestRuns(ways, way, i) <= RUNS_PER_WAY).map((ep) => get(ep.path));
  const needs = TOKEN_NEEDS[way.name];
  return DATA_ENDPOINTS.map((ep, i) => {
    const runs = fewestRuns(ways, way, i);
    const place = [get(ep.path)];
    const proof =
      runs > RUNS_PER_WAY
        ? unproven(
            unauth(i),
            `a default run (${DEFAULT_RUNS} fuzz runs) and the mutation test's run probe another way of this family here` +
              (mutants.length ? `; the way is proven at ${provenAt.join(', ')} (${mutants.join(', ')})` : ''),
          )
        : mutants.length
          ? by(unauth(i), ...mutants)
          : unproven(unauth(i), 'no mutant accepts a request this way');
    const scope = [runs > RUNS_PER_WAY ? `from --fuzz-runs ${runs}` : '', needs ?? ''].filter(Boolean).join(', ');
    return at(place, ['app'], scope ? probedWhen(scope, proof) : probed(proof));
  });
}

/** Entries every token way shares: path variants, HEAD, and the applications the probes do not start from. */
const TAIL: WaySpec['at'] = [
  at(
    PATH_VARIANTS.map((v) => v.place),
    undefined,
    notProbed(WHY.pathVariantsNoToken),
  ),
  at(HEADS, undefined, notProbed(WHY.head)),
  ...OTHERS.map((o) => at(undefined, o.apps, notProbed(o.why))),
];

/** A hand-picked wrong value of UNAUTH-*'s list, sent to every data endpoint in every run. */
function handPicked(way: Way, how: string): WaySpec {
  return {
    way,
    how,
    at: [
      ...DATA_ENDPOINTS.map((ep, i) =>
        at(
          [get(ep.path)],
          ['app'],
          probed(
            unproven(
              unauth(i),
              `no mutant accepts only this value: no-token-check-${ep.name} answers every request, and the check would still fail on its other wrong values without this one`,
            ),
          ),
        ),
      ),
      ...TAIL,
    ],
  };
}

/** No token at all: at the endpoint (hand-picked), and at the path variants (generated, one per endpoint by default). */
const NO_TOKEN: WaySpec = {
  way: 'absent',
  how: 'no open-token header: at the endpoint, and at a path a router serves as the endpoint',
  at: [
    ...DATA_ENDPOINTS.map((ep, i) =>
      at(
        [get(ep.path)],
        ['app'],
        probed(
          by(unauth(i), `no-token-check-${ep.name}`, ...(ep.name === 'seats' ? ['unauth-seats-no-token-403'] : [])),
        ),
      ),
    ),
    ...PATH_VARIANTS.map((v) => {
      const way = PATH_WAYS.find((w) => w.name === v.way)!;
      const runs = fewestRuns(PATH_WAYS, way, v.endpoint);
      const mutants = (MUTANTS_OF_WAY[way.name] ?? []).filter(() => runs <= RUNS_PER_WAY);
      const check = unauth(v.endpoint);
      const proof = mutants.length
        ? by(check, ...mutants)
        : unproven(
            check,
            runs <= RUNS_PER_WAY
              ? `no mutant serves ${way.name.replace(/^the path/, 'a path')} without a token`
              : `a default run (${DEFAULT_RUNS} fuzz runs) and the mutation test's run send another path variant here`,
          );
      return at(
        [v.place],
        ['app'],
        runs <= RUNS_PER_WAY ? probed(proof) : probedWhen(`from --fuzz-runs ${runs}`, proof),
      );
    }),
    at(HEADS, ['app'], notProbed(WHY.head)),
    // A request without a token is no application's: app stands for it above.
    at(
      undefined,
      ['other_app', 'disabled_app'],
      notProbed("a request without a token belongs to no application: app's cells say it"),
    ),
  ],
};

const ALL_PLACES = [...DATA, ...PATH_VARIANTS.map((v) => v.place), ...HEADS];

/** §4 rule 4, §5.3 and §5.4: endpoints 2–7 refuse every request without a valid open-token, with 401 and no data. */
export const TOKEN_RULE: Rule = {
  id: '§4 rule 4, §5.4',
  group: '§4 endpoints and numbered rules',
  text: 'Endpoints 2 to 7 need the open-token header (§4 rule 4); every other request carries the token in open-token (§5.3); a request without a valid credential is answered 401 (§5.4) — and carries no data',
  level: 'MUST',
  places: ALL_PLACES,
  apps: ['app', 'other_app', 'disabled_app'],
  ways: [
    NO_TOKEN,
    handPicked('absent', 'an empty open-token header'),
    {
      way: 'wrong value',
      how: 'a malformed token (not-a-token)',
      at: [
        at(
          undefined,
          undefined,
          notProbed(
            "not sent since #27's request budget: a value that shares nothing with the real token is taken only by a check lenient enough (presence only, any value) to take the last-character change, the secret key and the generated values as well; a format check that refuses it is probed by the same-shape token",
          ),
        ),
      ],
    },
    handPicked('wrong value', 'the real token with its last character changed'),
    handPicked('wrong value', "the application's secret key sent as the token"),
    ...VALUE_WAYS.map((w): WaySpec => ({
      way: WAY_OF[w.name] ?? 'wrong value',
      how: `${w.name}, in open-token`,
      at: [...generatedAt(VALUE_WAYS, w), ...TAIL],
    })),
    ...CARRIER_WAYS.map((w): WaySpec => ({
      way: 'wrong place or carrier',
      how: w.name,
      at: [...generatedAt(CARRIER_WAYS, w), ...TAIL],
    })),
    {
      way: "another application's or merchant's value",
      how: "the disabled application's earlier token",
      at: [
        ...disabledTokenAt(),
        at(
          PATH_VARIANTS.map((v) => v.place),
          ['disabled_app'],
          notProbed(WHY.pathVariantsNoToken),
        ),
        at(HEADS, undefined, notProbed(WHY.head)),
        at(
          undefined,
          ['app', 'other_app'],
          notProbed(
            "app's and other_app's own tokens are valid: each opens its own merchant's data (AUTH-05), which the isolation rule (§1) judges",
          ),
        ),
      ],
    },
    {
      way: 'stale value',
      how: 'a token superseded by a later /auth call',
      at: [
        at(
          undefined,
          ['app', 'other_app'],
          notProbed(
            "§5.6 leaves the token's validity open: an earlier token may stay valid; INFO-AUTH-TOKEN records whether it does",
          ),
        ),
        at(
          undefined,
          ['disabled_app'],
          notProbed("the disabled application's earlier token is this rule's other way (AUTH-10)"),
        ),
      ],
    },
  ],
  latitude: [
    {
      reading: 'the same token on every /auth call, or a new one that ends the earlier',
      variants: ['same-token-each-call', 'new-token-revokes-previous'],
    },
    { reading: 'a token that expires during the run (renewed once, recorded)', variants: ['first-token-expires'] },
    {
      reading:
        "any refusal for the real token in the query string: it is also a query parameter a list does not take (§4 rule 2), and which error that gets is ERR-06's to judge; UNAUTH-* judge only that the token was not taken (no success, no data)",
      variants: ['list-query-400'],
    },
    {
      reading:
        'any answer to HEAD: §4 defines GET only, and a refusal is its code field (§7), which a HEAD answer has no body for; an error over HTTP 200 is a refusal',
      variants: ['errors-http-200'],
    },
  ],
};
