import { AUTH_SCHEME, tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { route, type ApiRequest, type World } from '../server.js';
import type { App } from '../fixtures.js';

/**
 * Token checks that give way (#27): each accepts a credential §4 and §5 do not, in one way the generated probes of
 * the UNAUTH-* checks (suites/support/token-probes.ts) cover. A default run probes each way at the endpoints its
 * place in §4 assigns it (endpoint i starts at way i), so each mutant is caught by exactly those endpoints' checks.
 */

/** Answers as the application whose issued token `accepts` takes, when the request carries no valid one. */
function lenient(
  name: string,
  description: string,
  accepts: (req: ApiRequest, issued: string) => boolean,
  kills: string[],
): Mutant {
  return {
    name,
    description,
    kills,
    handle: (req, next, world) => {
      if (req.app) return next();
      const app = acceptedApp(world, (issued) => accepts(req, issued));
      return app ? route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world) : next();
    },
  };
}

function acceptedApp(world: World, accepts: (issued: string) => boolean): App | undefined {
  for (const [issued, app] of world.tokens) if (!app.disabled && accepts(issued)) return app;
  return undefined;
}

const header = (req: ApiRequest): string | undefined => {
  const h = tokenOfRequest(req.headers);
  return typeof h === 'string' && h !== '' ? h : undefined;
};

/** /auth answers as `app` would for its own pair when `accepts` takes the pair asked for. */
function lenientAuth(
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
    ['UNAUTH-DISH'],
  ),
  lenient(
    'token-prefix-accepted',
    'a data endpoint accepts an open-token that is a prefix of an issued token (compares the header length only)',
    (req, t) => t.startsWith(header(req) ?? '\u0000'),
    ['UNAUTH-MERCHANT'],
  ),
  lenient(
    'token-part-accepted',
    'a data endpoint accepts any open-token that is a part of an issued token',
    (req, t) => t.includes(header(req) ?? '\u0000'),
    ['UNAUTH-MERCHANT', 'UNAUTH-DISHES', 'UNAUTH-SEATS'],
  ),
  lenient(
    'token-case-insensitive',
    'a data endpoint compares the open-token without regard to letter case',
    (req, t) => header(req)?.toLowerCase() === t.toLowerCase(),
    ['UNAUTH-SEAT'],
  ),
  lenient(
    'token-spaces-ignored',
    'a data endpoint removes spaces from the open-token before comparing',
    (req, t) => header(req)?.replace(/ /g, '') === t,
    ['UNAUTH-ORDERS'],
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
    ['UNAUTH-MERCHANT'],
  ),
  lenient(
    'token-from-query',
    `a data endpoint takes the token from the query string (?${AUTH_SCHEME.carrier.param}= or ?token=) when no header carries one`,
    (req, t) => !header(req) && (req.query.get(AUTH_SCHEME.carrier.param) === t || req.query.get('token') === t),
    ['UNAUTH-MERCHANT', 'UNAUTH-DISHES', 'UNAUTH-SEAT', 'UNAUTH-ORDERS'],
  ),
  lenient(
    'token-from-bearer',
    `a data endpoint takes the token from an ${AUTH_SCHEME.otherCarrier.name} header`,
    (req, t) => !header(req) && AUTH_SCHEME.otherCarrier.tokenOf(req.headers) === t,
    ['UNAUTH-DISH'],
  ),
  lenient(
    'token-from-cookie',
    `a data endpoint takes the token from a cookie named ${AUTH_SCHEME.carrier.param}`,
    (req, t) => !header(req) && (req.headers.cookie ?? '').split(/;\s*/).includes(`${AUTH_SCHEME.carrier.param}=${t}`),
    ['UNAUTH-SEATS'],
  ),
  {
    name: 'trailing-slash-unguarded',
    description: 'a path with a trailing slash (/merchant/, /dishes/, /seats/11/ …) is served with no token at all',
    kills: ['UNAUTH-MERCHANT', 'UNAUTH-SEAT'],
    handle: (req, next, world) => {
      if (req.app || !req.path.endsWith('/') || req.path === '/') return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
];
