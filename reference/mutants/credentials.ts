import { AUTH_SCHEME, tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { route, type ApiRequest, type World } from '../server.js';
import type { App } from '../fixtures.js';

/**
 * Token checks that give way (#27): each accepts a credential §4 and §5 do not, in one way the probes of the
 * UNAUTH-* checks (suites/support/token-probes.ts) cover. Every run sends every way at every place of every data
 * endpoint (#35), so a mutant that gives way everywhere is caught by all six, and one confined to a place or to an
 * application's tokens by the checks of the endpoints where the covering design sends that way there.
 */

/** Every endpoint's UNAUTH check: each sends every way at every place of its endpoint, in every run (#35). */
const ALL_UNAUTH = ['UNAUTH-MERCHANT', 'UNAUTH-DISHES', 'UNAUTH-DISH', 'UNAUTH-SEATS', 'UNAUTH-SEAT', 'UNAUTH-ORDERS'];

/**
 * Answers as the application whose issued token `accepts` takes, when the request carries no valid one (only the
 * applications of `merchant`, when given).
 */
function lenient(
  name: string,
  description: string,
  accepts: (req: ApiRequest, issued: string) => boolean,
  kills: string[],
  merchant?: number,
): Mutant {
  return {
    name,
    description,
    kills,
    handle: (req, next, world) => {
      if (req.app) return next();
      const app = acceptedApp(world, (issued) => accepts(req, issued), merchant);
      return app ? route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world) : next();
    },
  };
}

/** The application whose issued token `accepts` takes (of that merchant's applications only, when given). */
function acceptedApp(world: World, accepts: (issued: string) => boolean, merchant?: number): App | undefined {
  for (const [issued, app] of world.tokens)
    if (!app.disabled && (merchant === undefined || app.merchant === merchant) && accepts(issued)) return app;
  return undefined;
}

const header = (req: ApiRequest): string | undefined => {
  const h = tokenOfRequest(req.headers);
  return typeof h === 'string' && h !== '' ? h : undefined;
};

/** /auth answers as `app` would for its own pair when `accepts` takes the pair asked for. */
export function lenientAuth(
  name: string,
  description: string,
  accepts: (secret: string, key: string, app: App, apps: readonly App[]) => boolean,
): Mutant {
  return {
    name,
    description,
    kills: ['AUTH-07'],
    handle: (req, next, world) => {
      const secret = req.query.get('secret') ?? '';
      const key = req.query.get('key') ?? '';
      if (req.path !== '/auth' || !secret || !key) return next();
      const own = world.fixtures.apps.find((a) => a.secret === secret && a.key === key);
      const app = own
        ? undefined
        : world.fixtures.apps.find((a) => !a.disabled && accepts(secret, key, a, world.fixtures.apps));
      return app ? route({ ...req, query: new URLSearchParams({ secret: app.secret, key: app.key }) }, world) : next();
    },
  };
}

/** Servers that leak credentials or accept a wrong key pair, each caught by exactly its `kills`. */
export const credentialMutants: Mutant[] = [
  lenientAuth(
    'auth-swapped-pair-accepted',
    '/auth issues a token for the key pair swapped (secret=<secret key>&key=<public key>)',
    (secret, key, a) => secret === a.key && key === a.secret,
  ),
  lenientAuth(
    'auth-key-prefix-accepted',
    "/auth accepts a prefix of the application's secret key (compares as many characters as were sent)",
    (secret, key, a) => secret === a.secret && a.key.startsWith(key),
  ),
  lenientAuth(
    'auth-other-merchant-key-unchecked',
    "/auth checks no secret key for the second merchant's application",
    (secret, _key, a) => secret === a.secret && a.merchant === 2,
  ),
  lenientAuth(
    'auth-any-application-key',
    "/auth accepts any application's secret key with a known public key",
    (secret, key, a, apps) => secret === a.secret && apps.some((b) => b.key === key),
  ),
  lenient(
    'token-contained-accepted',
    'a data endpoint accepts any open-token that contains an issued token',
    (req, t) => header(req)?.includes(t) === true,
    ALL_UNAUTH,
  ),
  lenient(
    'token-prefix-accepted',
    'a data endpoint accepts an open-token that is a prefix of an issued token (compares the header length only)',
    (req, t) => t.startsWith(header(req) ?? '\u0000'),
    ALL_UNAUTH,
  ),
  lenient(
    'token-part-accepted',
    'a data endpoint accepts any open-token that is a part of an issued token',
    (req, t) => t.includes(header(req) ?? '\u0000'),
    ALL_UNAUTH,
  ),
  lenient(
    'token-case-insensitive',
    'a data endpoint compares the open-token without regard to letter case',
    (req, t) => header(req)?.toLowerCase() === t.toLowerCase(),
    ALL_UNAUTH,
  ),
  lenient(
    'token-spaces-ignored',
    'a data endpoint removes spaces from the open-token before comparing',
    (req, t) => header(req)?.replace(/ /g, '') === t,
    ALL_UNAUTH,
  ),
  lenient(
    'token-near-match-accepted',
    'a data endpoint accepts an open-token one letter or digit away from an issued token (a near match, as a format check alone would)',
    (req, t) => {
      const h = header(req);
      if (h === undefined || h.length !== t.length) return false;
      const diff = [...h].flatMap((c, i) => (c === t[i] ? [] : [i]));
      return diff.length === 1 && /[A-Za-z0-9]/.test(h[diff[0]!]!) && /[A-Za-z0-9]/.test(t[diff[0]!]!);
    },
    ALL_UNAUTH,
  ),
  lenient(
    'token-from-query',
    `a data endpoint takes the token from the query string (?${AUTH_SCHEME.carrier.param}= or ?token=) when no header carries one`,
    (req, t) => !header(req) && (req.query.get(AUTH_SCHEME.carrier.param) === t || req.query.get('token') === t),
    ALL_UNAUTH,
  ),
  lenient(
    'token-from-bearer',
    `a data endpoint takes the token from an ${AUTH_SCHEME.otherCarrier.name} header`,
    (req, t) => !header(req) && AUTH_SCHEME.otherCarrier.tokenOf(req.headers) === t,
    ALL_UNAUTH,
  ),
  lenient(
    'token-from-cookie',
    `a data endpoint takes the token from a cookie named ${AUTH_SCHEME.carrier.param}`,
    (req, t) => !header(req) && (req.headers.cookie ?? '').split(/;\s*/).includes(`${AUTH_SCHEME.carrier.param}=${t}`),
    ALL_UNAUTH,
  ),
  // #35: defects confined to one place or one application, each in a cell a default run probed only by chance before.
  {
    name: 'dishes-trailing-slash-unguarded',
    description: 'GET /dishes/ (a trailing slash, on that endpoint only) is served with no token at all',
    kills: ['UNAUTH-DISHES'],
    handle: (req, next, world) => {
      if (req.app || req.path !== '/dishes/') return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
  {
    name: 'seat-alias-prefix-token',
    description:
      'GET /seats/:id/ (the trailing-slash alias of one endpoint) compares the open-token as a prefix of an issued token; /seats/:id itself compares it whole',
    kills: ['UNAUTH-SEAT'],
    handle: (req, next, world) => {
      if (req.app || !/^\/seats\/[^/]+\/$/.test(req.path)) return next();
      const h = header(req);
      const app = h === undefined ? undefined : acceptedApp(world, (issued) => issued.startsWith(h));
      return app ? route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world) : next();
    },
  },
  lenient(
    'other-app-token-case-insensitive',
    "a data endpoint compares the second merchant's tokens (a legacy table) without regard to letter case: a token derived from other_app's is accepted",
    (req, t) => {
      const h = header(req);
      return h !== undefined && h !== t && h.toLowerCase() === t.toLowerCase();
    },
    ['UNAUTH-MERCHANT', 'UNAUTH-DISHES', 'UNAUTH-SEATS', 'UNAUTH-SEAT'],
    2,
  ),
  {
    name: 'orders-upper-case-any-token',
    description:
      'GET /ORDERS (an upper-case alias of one endpoint) is served to any non-empty open-token: a wrong token is accepted only there',
    kills: ['UNAUTH-ORDERS'],
    handle: (req, next, world) => {
      if (req.app || req.path !== '/ORDERS' || header(req) === undefined) return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, path: '/orders', app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
  {
    name: 'trailing-slash-unguarded',
    description: 'a path with a trailing slash (/merchant/, /dishes/, /seats/11/ …) is served with no token at all',
    kills: ALL_UNAUTH,
    handle: (req, next, world) => {
      if (req.app || !req.path.endsWith('/') || req.path === '/') return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
];
