import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { AUTH_SCHEME } from '../../core/spec/auth-scheme.js';
import { SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import {
  APP_WAYS,
  appFor,
  BARE_WAYS,
  CARRIER_WAYS,
  PATH_WAYS,
  placeIndex,
  type ProbeApp,
} from '../support/token-probes.js';
import {
  APPS,
  at,
  by,
  notApplicable,
  probed,
  probedVia,
  probedWhen,
  unproven,
  type Outcome,
  type Place,
  type Proof,
  type Rule,
  type Way,
  type WaySpec,
} from './model.js';
import { DATA, get, HEADS, variantPath } from './places.js';
import { disabledTokenAt } from './protocol.js';

/**
 * §4 rule 4, §5.3, §5.4 as cells: the token check of every data endpoint, for every way the UNAUTH-* checks send
 * (support/token-probes.ts), at every place (the endpoint and each path way of it) in every run. Which application's
 * credentials a way is derived from at a place is the covering design's (appFor), computed here from the same
 * function, so the matrix says what a run sends.
 */

/** The scheme's carrier as the spec names it (§5.3: open-token): the rule's words follow the auth seam. */
const CARRIER = AUTH_SCHEME.carrierName;

/** The UNAUTH check of a data endpoint, by its index in §4's data endpoints. */
const unauth = (i: number): string => `UNAUTH-${DATA_ENDPOINTS[i]!.name.toUpperCase()}`;

/** The mutants that accept a token the way a probe sends it, wherever the reference server serves the path. */
export const MUTANTS_OF_WAY: Record<string, string[]> = {
  'a prefix of the real token': ['token-prefix-accepted', 'token-part-accepted'],
  'a suffix of the real token': ['token-part-accepted'],
  'the real token with characters added around it': ['token-contained-accepted'],
  'a part of the real token (both ends cut)': ['token-part-accepted'],
  'the real token in another letter case': ['token-case-insensitive'],
  'the real token with a space inside': ['token-spaces-ignored'],
  'the real token with one letter or digit changed to another of its own': ['token-near-match-accepted'],
  // The carriers' names follow the auth scheme (core/spec/auth-scheme.ts, authScheme: always these four, in this order).
  [CARRIER_WAYS[0]!.name]: ['token-from-query'],
  [CARRIER_WAYS[1]!.name]: ['token-from-query'],
  [CARRIER_WAYS[2]!.name]: ['token-from-bearer'],
  [CARRIER_WAYS[3]!.name]: ['token-from-cookie'],
  'the path with a trailing slash': ['trailing-slash-unguarded'],
  'the path after a doubled slash': ['doubled-slash-unguarded'],
  'the path in upper case': ['upper-case-path-unguarded'],
  'the path with its first letter percent-encoded': ['percent-encoded-path-unguarded'],
};

/** The matrix's way of each probe way (the ways not named here are wrong values, or other carriers). */
const WAY_OF: Record<string, Way> = {
  [BARE_WAYS[0]!.name]: 'absent',
  [BARE_WAYS[1]!.name]: 'absent',
  'a prefix of the real token': 'partial or prefix match',
  'a suffix of the real token': 'partial or prefix match',
  'the real token with characters added around it': 'partial or prefix match',
  'a part of the real token (both ends cut)': 'partial or prefix match',
  'the real token in another letter case': 'case',
  'the real token with a space inside': 'whitespace or encoding',
};

/** What a derived way needs of the token (the UNAUTH check notes the way not probed for a token without it). */
const TOKEN_NEEDS: Record<string, string> = {
  'a prefix of the real token': `a token of more than ${SAFE_SECRET_LENGTH} characters`,
  'a suffix of the real token': `a token of more than ${SAFE_SECRET_LENGTH} characters`,
  'a part of the real token (both ends cut)': `a token of more than ${SAFE_SECRET_LENGTH + 1} characters`,
  'the real token in another letter case': 'a token that has letters',
  'the real token with a space inside': 'a token of 2 characters or more',
  'the real token with one letter or digit changed to another of its own': 'a token of two different letters or digits',
  'the application secret key sent as the token': "the application's secret key (disabled_app's is optional)",
};

/** The path ways the reference server itself serves as the endpoint (it ignores empty segments): trailing, doubled. */
const SERVED_PATH_WAYS = new Set([0, 1]);

/** Mutants confined to one place (reference/mutants/credentials.ts, #35): the place, and which ways they take. */
const PLACE_MUTANTS: ReadonlyArray<{ mutant: string; place: Place; takes: (way: string) => boolean }> = [
  { mutant: 'dishes-trailing-slash-unguarded', place: get('/dishes/'), takes: () => true },
  {
    mutant: 'orders-upper-case-any-token',
    place: get('/ORDERS'),
    // Any non-empty open-token: not the ways without one (no header, an empty one, another carrier).
    takes: (w) => w !== BARE_WAYS[0]!.name && w !== BARE_WAYS[1]!.name && !CARRIER_WAYS.some((c) => c.name === w),
  },
];

/** The token rule's GET places, each with its index in the covering design. */
const GET_PLACES: ReadonlyArray<{ place: Place; endpoint: number; pathWay?: number; index: number }> = [
  ...DATA_ENDPOINTS.map((ep, i) => ({ place: get(ep.path), endpoint: i, index: placeIndex(i) })),
  ...PATH_WAYS.flatMap((w, v) =>
    DATA_ENDPOINTS.map((ep, i) => ({
      place: get(variantPath(w.name, ep.path)),
      endpoint: i,
      pathWay: v,
      index: placeIndex(i, v),
    })),
  ),
];

/** The mutants that catch a way at a place when it is sent from `who`'s credentials. */
function mutantsAt(way: string, p: (typeof GET_PLACES)[number], who: ProbeApp | undefined): string[] {
  const ep = DATA_ENDPOINTS[p.endpoint]!;
  const out: string[] = [];
  // Mutants that serve the place to any request without a valid token: every way is caught there.
  if (p.pathWay === undefined) out.push(`no-token-check-${ep.name}`);
  else out.push(...(MUTANTS_OF_WAY[PATH_WAYS[p.pathWay]!.name] ?? []));
  for (const m of PLACE_MUTANTS) if (m.place === p.place && m.takes(way)) out.push(m.mutant);
  if (way === BARE_WAYS[0]!.name && p.place === get('/seats')) out.push('unauth-seats-no-token-403');
  // Mutants whose token comparison gives way: where the reference server serves the path, for an enabled
  // application's credentials.
  const served = p.pathWay === undefined || SERVED_PATH_WAYS.has(p.pathWay);
  if (served && (who === 'app' || who === 'other_app')) {
    out.push(...(MUTANTS_OF_WAY[way] ?? []));
    if (who === 'other_app' && way === 'the real token in another letter case')
      out.push('other-app-token-case-insensitive');
  }
  if (way === 'a prefix of the real token' && p.place === get('/seats/:id/') && who !== 'disabled_app')
    out.push('seat-alias-prefix-token');
  return out;
}

/** The proof of a way at a place: the check, and the mutants that catch it when sent from `who`'s credentials. */
function proofAt(way: string, p: (typeof GET_PLACES)[number], who: ProbeApp | undefined): Proof {
  const mutants = mutantsAt(way, p, who);
  return mutants.length
    ? by(unauth(p.endpoint), ...mutants)
    : unproven(unauth(p.endpoint), 'no mutant takes this way here');
}

/** The cells of a way no application's token is needed for: one request stands for every application. */
function bareAt(way: string): WaySpec['at'] {
  return GET_PLACES.map((p) => at([p.place], undefined, probed(proofAt(way, p, undefined))));
}

/**
 * The cells of a way derived from an application's credentials: probed from the application the covering design
 * gives the place, and for the others through the design (the way is sent here, and from their credentials at
 * other places).
 */
function derivedAt(way: string, k: number): WaySpec['at'] {
  const needs = TOKEN_NEEDS[way];
  return GET_PLACES.flatMap((p) => {
    const sent = appFor(APPS, k, p.index);
    const proof = proofAt(way, p, sent);
    const own = needs ? probedWhen(`with ${needs}`, proof) : probed(proof);
    const design: Outcome = probedVia(
      `covering design: sent here from ${sent}'s credentials${needs ? `, with ${needs}` : ''}`,
      unproven(
        unauth(p.endpoint),
        `this way is sent from this application's credentials at other places of the endpoint`,
      ),
    );
    return [
      at([p.place], [sent], own),
      at(
        [p.place],
        APPS.filter((a) => a !== sent),
        design,
      ),
    ];
  });
}

/** HEAD: no rule a HEAD answer can break (RFC 9110 and §7 quoted). */
const HEAD_NA = at(
  HEADS,
  undefined,
  notApplicable(
    'RFC 9110 §9.3.2; spec §7',
    'The HEAD method is identical to GET except that the server MUST NOT send content in the response. / The error code is given in the response field code; msg carries a description.',
    "the refusal the rule asks for is the code field of the answer's body (§7), which a HEAD answer may not carry, and an answer with no content carries no data: neither half of the rule can be judged in a HEAD answer",
  ),
);

const GET_PLACE_NAMES = GET_PLACES.map((p) => p.place);

/** §4 rule 4, §5.3 and §5.4: endpoints 2–7 refuse every request without a valid open-token, with 401 and no data. */
export const TOKEN_RULE: Rule = {
  id: '§4 rule 4, §5.4',
  group: '§4 endpoints and numbered rules',
  text: `Endpoints 2 to 7 need the ${CARRIER} header (§4 rule 4); every other request carries the token in ${CARRIER} (§5.3); a request without a valid credential is answered 401 (§5.4) — and carries no data`,
  level: 'MUST',
  places: [...DATA, ...GET_PLACE_NAMES.slice(DATA.length), ...HEADS],
  apps: ['app', 'other_app', 'disabled_app'],
  ways: [
    ...BARE_WAYS.map((w): WaySpec => ({
      way: WAY_OF[w.name] ?? 'wrong value',
      how: `${w.name}: one request for every application (it carries nothing of any)`,
      at: [...bareAt(w.name), HEAD_NA],
    })),
    ...APP_WAYS.map((w, k): WaySpec => ({
      way: w.kind === 'carrier' ? 'wrong place or carrier' : (WAY_OF[w.name] ?? 'wrong value'),
      how: w.kind === 'carrier' ? w.name : `${w.name}, in ${CARRIER}`,
      at: [...derivedAt(w.name, k), HEAD_NA],
    })),
    {
      way: "another application's or merchant's value",
      how: "the disabled application's earlier token",
      at: [
        ...disabledTokenAt(),
        ...GET_PLACES.filter((p) => p.pathWay !== undefined).map((p) =>
          at(
            [p.place],
            ['disabled_app'],
            probed(proofAt("the disabled application's earlier token", p, 'disabled_app')),
          ),
        ),
        HEAD_NA,
        at(
          undefined,
          ['app', 'other_app'],
          notApplicable(
            '§5.5',
            'The merchant can disable an application; its credential is then refused with 401.',
            "the disabled application's credential is its own: app and other_app are enabled, and their own tokens are valid credentials (§5.3), which open their own merchant's data (AUTH-05; whose data is the isolation rule's)",
          ),
        ),
      ],
    },
    {
      way: 'stale value',
      how: 'a token superseded by a later /auth call',
      at: [
        HEAD_NA,
        at(
          undefined,
          ['app', 'other_app'],
          notApplicable(
            '§5.6',
            'Validity period of the API Token: not shown.',
            'an earlier token may stay valid after a later /auth call, so accepting it breaks no rule; INFO-AUTH-TOKEN records whether it does',
          ),
        ),
        at(
          undefined,
          ['disabled_app'],
          notApplicable(
            '§5.5',
            'The merchant can disable an application; its credential is then refused with 401.',
            "a disabled application gets no later token to supersede its earlier one (its /auth is refused, AUTH-09); its earlier token is this rule's other way (AUTH-10)",
          ),
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
        'a router that serves the path ways (a trailing or doubled slash, any letter case, a percent-encoded letter) as the endpoint, with the token check; or answers them 404',
      variants: ['router-serves-aliases'],
    },
    {
      reading:
        'any answer to HEAD: §4 defines GET only, and a refusal is its code field (§7), which a HEAD answer has no body for; an error over HTTP 200 is a refusal',
      variants: ['errors-http-200'],
    },
  ],
};
