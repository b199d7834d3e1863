import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { isSuccess, nearPublicKey, onPath, pathIs, withBody } from '../kit.js';
import { route, type ApiReply, type ApiRequest, type World } from '../server.js';

/**
 * Proof per way (#27): one mutant for each failure branch of a check that had none of its own, each breaking the
 * rule that one way only, so the run against it fails that check alone (or names why another check sees it too).
 * Deleting the branch leaves the mutant uncaught, which test/mutants.test.ts reports.
 */

/** Data that names nothing of any merchant and issues nothing: only a check's "carries data" branch sees it. */
const HINT = { hint: 'see the documentation' };

/** A refusal with HINT as its data; a success is left as it is. */
const withHint = (r: ApiReply): ApiReply =>
  isSuccess(r)
    ? r
    : withBody(r, (b) => {
        b.data = HINT;
      });

/** An /auth refusal that carries data, for the requests `when` picks (each AUTH-0x check sends its own pairs). */
function authRefusalWithData(
  name: string,
  description: string,
  kill: string,
  when: (q: URLSearchParams, world: World, req: ApiRequest) => boolean,
): Mutant {
  return {
    ...onPath(name, description, ['/auth'], (r, req, world) => (when(req.query, world, req) ? withHint(r) : r)),
    kills: [kill],
  };
}

const disabledToken = (req: ApiRequest, world: World): boolean => {
  const token = tokenOfRequest(req.headers);
  return typeof token === 'string' && world.tokens.get(token)?.disabled === true;
};

const known = (world: World, secret: string | null): boolean => world.fixtures.apps.some((a) => a.secret === secret);

/** The data endpoints' paths (§4 endpoints 2–7), as pathIs patterns. */
/** Every endpoint's UNAUTH check: each sends every way at every path way of its endpoint (#35). */
const ALL_UNAUTH = ['UNAUTH-MERCHANT', 'UNAUTH-DISHES', 'UNAUTH-DISH', 'UNAUTH-SEATS', 'UNAUTH-SEAT', 'UNAUTH-ORDERS'];
const DATA_PATHS = ['/merchant', '/dishes', '/dishes/:id', '/seats', '/seats/:id', '/orders'];

/**
 * A router that serves a spelling of a data endpoint's path as the endpoint, with no token check: `canonical` turns
 * the spelling into the endpoint's path, or gives it back unchanged when it is no such spelling.
 */
function spellingUnguarded(name: string, description: string, canonical: (path: string) => string, kills: string[]) {
  return {
    name,
    description,
    kills,
    handle: (req: ApiRequest, next: () => ApiReply, world: World): ApiReply => {
      if (req.app) return next();
      const path = canonical(req.path);
      if (path === req.path || !DATA_PATHS.some((p) => pathIs({ ...req, path }, p))) return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, path, app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  } satisfies Mutant;
}

const decoded = (p: string): string => {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
};

/** Mutants that each break one failure branch of one check (proof per way, issue #27), each caught by that check alone. */
export const branchMutants: Mutant[] = [
  // The "refusal carries data" branch of each /auth refusal check, apart (judgeAuthRefusal's for AUTH-06, -08, -09;
  // AUTH-07's own).
  authRefusalWithData(
    'auth-missing-param-refusal-carries-data',
    '/auth without secret or key refuses with data {"hint": …}',
    'AUTH-06',
    // Without a token: ERR-04 asks /auth without parameters with other_app's and the disabled token as well (#35).
    (q, _world, req) => (!q.get('secret') || !q.get('key')) && tokenOfRequest(req.headers) === undefined,
  ),
  authRefusalWithData(
    'auth-wrong-key-refusal-carries-data',
    '/auth refuses a known public key with a wrong secret key with data {"hint": …}',
    'AUTH-07',
    (q, world) =>
      !!q.get('key') &&
      world.fixtures.apps.some((a) => !a.disabled && a.secret === q.get('secret') && a.key !== q.get('key')),
  ),
  authRefusalWithData(
    'auth-unknown-public-key-refusal-carries-data',
    '/auth refuses an unknown public key with data {"hint": …}',
    'AUTH-08',
    // Not AUTH-07's swapped pair, whose public key is an application's secret key.
    (q, world) =>
      !!q.get('secret') &&
      !!q.get('key') &&
      !known(world, q.get('secret')) &&
      !nearPublicKey(world.fixtures.apps, q.get('secret')!) &&
      !world.fixtures.apps.some((a) => a.key === q.get('secret')),
  ),
  authRefusalWithData(
    'auth-disabled-refusal-carries-data',
    '/auth refuses the disabled application\'s key pair with data {"hint": …}',
    'AUTH-09',
    (q, world) => world.fixtures.apps.some((a) => a.disabled && a.secret === q.get('secret') && a.key === q.get('key')),
  ),
  {
    name: 'disabled-token-refusal-carries-data',
    description: 'the 401 to the disabled application\'s earlier token carries data {"hint": …}',
    kills: ['AUTH-10'],
    // At the endpoints themselves (AUTH-10's places), not at the path ways UNAUTH-* send the token to (#35).
    handle: (req, next, world) =>
      disabledToken(req, world) && DATA_PATHS.some((p) => pathIs(req, p)) ? withHint(next()) : next(),
  },
  // UNAUTH-*'s refusalProblem is one function for the six checks: its code and its data branch, each at one endpoint.
  {
    ...onPath(
      'unauth-dishes-refusal-carries-data',
      'the 401s of GET /dishes carry data {"hint": …}',
      ['/dishes'],
      (r, req, world) =>
        // Not the disabled application's token: AUTH-10's own branch is disabled-token-refusal-carries-data.
        req.app || disabledToken(req, world) ? r : withHint(r),
    ),
    kills: ['UNAUTH-DISHES'],
  },
  {
    ...onPath(
      'unauth-seats-no-token-403',
      'GET /seats without an open-token header answers code 403 (no data), not 401',
      ['/seats'],
      (r, req, world) =>
        req.app || tokenOfRequest(req.headers) !== undefined ? r : world.render.error(403, 'Forbidden: no token'),
    ),
    kills: ['UNAUTH-SEATS'],
  },
  // The path ways of the generated probes that had no mutant (trailing-slash-unguarded is credentials.ts').
  spellingUnguarded(
    'doubled-slash-unguarded',
    'a data endpoint after a doubled slash (//dishes, //orders …) is served with no token at all',
    (p) => p.replace(/^\/\/+/, '/'),
    ALL_UNAUTH,
  ),
  spellingUnguarded(
    'upper-case-path-unguarded',
    'a data endpoint in upper case (/DISHES/101 …) is served with no token at all',
    (p) => p.toLowerCase(),
    ALL_UNAUTH,
  ),
  spellingUnguarded(
    'percent-encoded-path-unguarded',
    'a data endpoint with a percent-encoded letter (/%73eats …) is served with no token at all',
    decoded,
    ALL_UNAUTH,
  ),
  {
    // SEC-02's password-hash branch: a hash under a name that names no credential (the name branch is
    // merchant-password-hash's).
    name: 'merchant-bare-password-hash',
    description: 'the merchant record carries a bcrypt hash as login_digest',
    kills: ['SEC-02'],
    render: {
      merchant: (m) => ({
        ...m,
        login_digest: `$2y$10$${'N9qo8uLOickgx2ZMRZoMye'}${'IjZAgcfl7p92ldGxad68LJZdL17lhWy'}`,
      }),
    },
  },
  {
    // SEC-02's walk into arrays: a hash that is an element of a list of strings has no member name of its own.
    name: 'dish-tags-password-hash',
    description: 'every dish carries tags ["spicy", <a bcrypt hash>]',
    kills: ['SEC-02'],
    render: {
      dish: (d) => ({
        ...d,
        tags: ['spicy', `$2y$10$${'N9qo8uLOickgx2ZMRZoMye'}${'IjZAgcfl7p92ldGxad68LJZdL17lhWy'}`],
      }),
    },
  },
  {
    // ENV-01's "no data member" branch.
    name: 'other-merchant-seats-no-data',
    description: "GET /seats answers the second merchant's application {status: SUCCESS, code: 200} with no data",
    kills: ['ENV-01'],
    handle: (req, next) => {
      const r = next();
      return req.path === '/seats' && req.merchant?.id === 2 && isSuccess(r)
        ? withBody(r, (b) => {
            delete b.data;
          })
        : r;
    },
  },
  {
    // ENV-01's "not JSON" branch.
    name: 'other-merchant-merchant-not-json',
    description: "GET /merchant answers the second merchant's application with a body cut short (not JSON)",
    kills: ['ENV-01'],
    handle: (req, next) => {
      const r = next();
      if (req.path !== '/merchant' || req.merchant?.id !== 2 || !isSuccess(r)) return r;
      return { ...r, raw: JSON.stringify(r.body).slice(0, 40) };
    },
  },
];
