import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { isSuccess, nearPublicKey, onPath, pathIs, withBody, withData } from '../kit.js';
import { ok, route, type ApiReply, type ApiRequest, type World } from '../server.js';
import type { App } from '../fixtures.js';
import { lenientAuth } from './credentials.js';
import { dishIdOf, readWithout } from './readonly.js';
import type { TLSSocket } from 'node:tls';

/**
 * #35's cells of authentication for every application (not only app's): a key pair of other_app or of the disabled
 * application respelled, cut or carried elsewhere; other_app's token refused, its lists filtered, its GETs writing;
 * the disabled application's keys and token where the suite did not send them before. Each is caught by exactly its
 * `kills`, through the probe of the application or place it is confined to.
 */

/** The second merchant's application (other_app in the demo). */
const OTHER_MERCHANT = 2;

/** An application's /auth success, issued whatever its disabled flag (a path that forgets to look at it). */
function issuedTo(app: App, world: World): ApiReply {
  return ok({
    app_name: app.name,
    app_secret: app.secret,
    app_key: app.key,
    app_token: world.issueToken(app),
    merchant: world.render.merchant(world.merchants.get(app.merchant)!),
  });
}

/** The application a request's open-token names, disabled or not. */
const tokenApp = (req: ApiRequest, world: World): App | undefined => {
  const t = tokenOfRequest(req.headers);
  return t ? world.tokens.get(t) : undefined;
};

/** AUTH-07's way confined to the second merchant's application. */
const otherAppAuth = (name: string, description: string, accepts: (secret: string, key: string, a: App) => boolean) =>
  lenientAuth(name, description, (secret, key, a) => a.merchant === OTHER_MERCHANT && accepts(secret, key, a));

/** A list endpoint of the second merchant that does `change` to an answer given query parameters. */
function otherMerchantListQuery(
  name: string,
  description: string,
  paths: string[],
  change: (r: ApiReply, req: ApiRequest, world: World) => ApiReply,
): Mutant {
  return {
    ...onPath(name, description, paths, (r, req, world) =>
      req.merchant?.id === OTHER_MERCHANT && [...req.query.keys()].length ? change(r, req, world) : r,
    ),
    kills: ['ERR-06'],
  };
}

/** Per server: how many times the second merchant's orders were read (other-merchant-orders-marked-seen). */
const otherReads = new WeakMap<World, { n: number }>();

/** Requests that came over plain HTTP (their header objects), per server start: the plain listener's mutants. */
const overPlain = new WeakSet<object>();
/** Marks a request that came over plain HTTP; answers nothing itself. */
const markPlain = (req: { socket: unknown; headers: object }): boolean => {
  if (!(req.socket as TLSSocket).encrypted) overPlain.add(req.headers);
  return false;
};

/** Per server: dishes a DELETE without a token removed (delete-without-token-removes-dish). */
const goneWithoutToken = new WeakMap<World, Set<string>>();
/** Per server: the second merchant's dishes renamed through PATCH (other-merchant-patch-renames-dish). */
const renamed = new WeakMap<World, Map<string, string>>();
const stateOf = <T>(map: WeakMap<World, T>, world: World, make: () => T): T => {
  let v = map.get(world);
  if (!v) map.set(world, (v = make()));
  return v;
};
/** The mutants of #35's authentication, transport and method cells for every application (see the top of this file). */
export const authWayMutants: Mutant[] = [
  // RO-01: unsafe methods without a token, and with the second merchant's.
  {
    name: 'delete-without-token-removes-dish',
    description:
      'DELETE /dishes/:id with no token at all deletes the dish (the route was left outside the token middleware): it leaves /dishes and its detail answers 404',
    kills: ['RO-01'],
    handle: (req, next, world) => {
      const gone = stateOf(goneWithoutToken, world, () => new Set<string>());
      const id = dishIdOf(req);
      if (req.method === 'DELETE' && id !== undefined && tokenOfRequest(req.headers) === undefined) {
        gone.add(id);
        return ok(null);
      }
      return readWithout(gone, id, req, next, world);
    },
  },
  {
    name: 'other-merchant-patch-renames-dish',
    description:
      'PATCH /dishes/:id with the second merchant\'s token renames its dish (to "patched"): its detail answers the new name afterwards',
    kills: ['RO-01'],
    handle: (req, next, world) => {
      const names = stateOf(renamed, world, () => new Map<string, string>());
      const id = dishIdOf(req);
      if (req.method === 'PATCH' && id !== undefined && req.merchant?.id === OTHER_MERCHANT) {
        names.set(id, 'patched');
        return ok(null);
      }
      const name = id !== undefined && req.method === 'GET' ? names.get(id) : undefined;
      return name === undefined ? next() : withData(next(), (d) => void (d.name = name));
    },
  },
  // TRANS-03: a plain listener that serves some paths, or some applications, only.
  {
    name: 'plain-http-serves-dishes-only',
    description:
      'the HTTPS port also answers plain HTTP, where only GET /dishes reaches the API (with its token check); every other path answers a plain-text 404',
    kills: ['TRANS-03'],
    plainAndTls: true,
    raw: markPlain,
    handle: (req, next) =>
      overPlain.has(req.headers) && req.path !== '/dishes' ? { http: 404, body: null, raw: 'Not Found' } : next(),
  },
  {
    name: 'plain-http-serves-other-merchant',
    description:
      "the HTTPS port also answers plain HTTP, where it refuses the first merchant's token and key pair with 403 (HTTPS required) but serves the second merchant's (an allow-list left over)",
    kills: ['TRANS-03'],
    plainAndTls: true,
    raw: markPlain,
    handle: (req, next, world) => {
      if (!overPlain.has(req.headers)) return next();
      const secret = req.query.get('secret');
      const merchant = req.merchant?.id ?? world.fixtures.apps.find((a) => a.secret === secret)?.merchant;
      return merchant !== undefined && merchant !== OTHER_MERCHANT ? world.render.error(403, 'HTTPS required') : next();
    },
  },
  // AUTH-07, other_app's and the disabled application's pairs.
  otherAppAuth(
    'auth-other-app-swapped-pair-accepted',
    "/auth issues the second merchant's application a token for its key pair swapped",
    (secret, key, a) => secret === a.key && key === a.secret,
  ),
  otherAppAuth(
    'auth-other-app-key-prefix-accepted',
    "/auth accepts a prefix of the second merchant's application's secret key",
    (secret, key, a) => secret === a.secret && a.key.startsWith(key),
  ),
  lenientAuth(
    'auth-key-inner-part-accepted',
    "/auth accepts any part of at least 8 characters of an application's secret key (a LIKE '%…%' lookup)",
    (secret, key, a) => secret === a.secret && key.length >= 8 && a.key.includes(key),
  ),
  otherAppAuth(
    'auth-other-app-key-suffix-accepted',
    "/auth accepts a suffix of the second merchant's application's secret key",
    (secret, key, a) => secret === a.secret && a.key.endsWith(key),
  ),
  lenientAuth(
    'auth-key-case-insensitive',
    "/auth compares an application's secret key without letter case",
    (secret, key, a) => secret === a.secret && key.toLowerCase() === a.key.toLowerCase(),
  ),
  otherAppAuth(
    'auth-other-app-key-case-insensitive',
    "/auth compares the second merchant's application's secret key without letter case",
    (secret, key, a) => secret === a.secret && key.toLowerCase() === a.key.toLowerCase(),
  ),
  lenientAuth(
    'auth-key-trimmed',
    "/auth trims the spaces around an application's secret key",
    (secret, key, a) => secret === a.secret && key.trim() === a.key,
  ),
  otherAppAuth(
    'auth-other-app-key-trimmed',
    "/auth trims the spaces around the second merchant's application's secret key",
    (secret, key, a) => secret === a.secret && key.trim() === a.key,
  ),
  // The public key broken with the right secret key (#35): a prefix, another letter case, spaces around it.
  lenientAuth(
    'auth-public-key-prefix-accepted',
    "/auth accepts a prefix of at least 8 characters of an application's public key (compares as many characters as were sent)",
    (secret, key, a) => key === a.key && secret.length >= 8 && a.secret.startsWith(secret),
  ),
  otherAppAuth(
    'auth-other-app-public-key-case-insensitive',
    "/auth compares the second merchant's application's public key without letter case",
    (secret, key, a) => key === a.key && secret.toLowerCase() === a.secret.toLowerCase(),
  ),
  {
    name: 'auth-disabled-public-key-trimmed-400',
    description:
      "/auth answers 400 to a disabled application's public key with spaces around it (its lookup trims, then fails on the disabled flag)",
    kills: ['AUTH-07'],
    handle: (req, next, world) => {
      const secret = req.query.get('secret');
      const key = req.query.get('key');
      if (req.path !== '/auth' || !secret || !key) return next();
      const named = world.fixtures.apps.find((a) => a.disabled && a.secret !== secret && a.secret === secret.trim());
      return named ? world.render.error(400, 'Parameter error') : next();
    },
  },
  {
    name: 'auth-disabled-app-wrong-pair-400',
    description:
      "/auth answers 400 to any pair but its own that names a disabled application's key as the public key (its lookup of a disabled application fails on a wrong key)",
    kills: ['AUTH-07'],
    handle: (req, next, world) => {
      const secret = req.query.get('secret');
      const key = req.query.get('key');
      if (req.path !== '/auth' || !secret || !key) return next();
      const named = world.fixtures.apps.find((a) => a.disabled && (a.secret === secret || a.key === secret));
      return named && !(named.secret === secret && named.key === key)
        ? world.render.error(400, 'Parameter error')
        : next();
    },
  },
  // AUTH-06: other_app's and the disabled application's pairs, and keys in headers.
  {
    name: 'auth-other-app-missing-key-succeeds',
    description: "/auth with the second merchant's application's public key alone issues its token",
    kills: ['AUTH-06'],
    handle: (req, next, world) => {
      const app = world.fixtures.apps.find((a) => a.secret === req.query.get('secret'));
      return req.path === '/auth' && !req.query.get('key') && app?.merchant === OTHER_MERCHANT
        ? issuedTo(app, world)
        : next();
    },
  },
  {
    name: 'auth-disabled-missing-key-succeeds',
    description:
      "/auth with a disabled application's public key alone issues a token (the path without a key never reads the disabled flag)",
    kills: ['AUTH-06'],
    handle: (req, next, world) => {
      const app = world.fixtures.apps.find((a) => a.secret === req.query.get('secret'));
      return req.path === '/auth' && !req.query.get('key') && app?.disabled ? issuedTo(app, world) : next();
    },
  },
  {
    name: 'auth-keys-from-headers',
    description:
      '/auth without secret and key in the query takes them from request headers of those names (and reads no disabled flag there)',
    kills: ['AUTH-06'],
    handle: (req, next, world) => {
      if (req.path !== '/auth' || req.query.get('secret') || req.query.get('key')) return next();
      const app = world.fixtures.apps.find((a) => a.secret === req.headers.secret && a.key === req.headers.key);
      return app ? issuedTo(app, world) : next();
    },
  },
  {
    name: 'auth-keys-from-body',
    description:
      '/auth without secret and key in the query takes them from the GET request body, as JSON or as a form (and reads no disabled flag there)',
    kills: ['AUTH-06'],
    readsBody: true,
    handle: (req, next, world) => {
      if (req.path !== '/auth' || req.query.get('secret') || req.query.get('key') || !req.body) return next();
      let secret: unknown;
      let key: unknown;
      try {
        ({ secret, key } = JSON.parse(req.body) as { secret?: unknown; key?: unknown });
      } catch {
        const form = new URLSearchParams(req.body);
        secret = form.get('secret');
        key = form.get('key');
      }
      const app = world.fixtures.apps.find((a) => a.secret === secret && a.key === key);
      return app ? issuedTo(app, world) : next();
    },
  },
  // AUTH-08: an unknown public key with other_app's or the disabled application's secret key.
  {
    ...lenientAuth(
      'auth-other-app-secret-key-alone',
      "/auth issues the second merchant's application's token for its secret key whatever the public key (it looks that application up by its secret key)",
      (secret, key, a, apps) => a.merchant === OTHER_MERCHANT && key === a.key && !nearPublicKey(apps, secret),
    ),
    kills: ['AUTH-08'],
  },
  {
    ...onPath(
      'auth-disabled-key-unknown-public-500',
      "/auth with an unknown public key and a disabled application's secret key answers 500",
      ['/auth'],
      (r, req, world) =>
        !!req.query.get('secret') &&
        !nearPublicKey(world.fixtures.apps, req.query.get('secret')!) &&
        world.fixtures.apps.some((a) => a.disabled && a.key === req.query.get('key'))
          ? world.render.error(500, 'System exception')
          : r,
    ),
    kills: ['AUTH-08'],
  },
  // AUTH-05: the second merchant's token refused at one endpoint.
  {
    ...onPath(
      'other-app-token-refused-at-seat',
      "GET /seats/:id refuses the second merchant's valid token (401) for its own seats",
      ['/seats/:id'],
      (r, req, world) =>
        req.merchant?.id === OTHER_MERCHANT && isSuccess(r)
          ? world.render.error(401, 'Application not authenticated')
          : r,
    ),
    // SEAT-02 reads merchant B's seat details too (#35): a refused one is no seat record.
    kills: ['AUTH-05', 'SEAT-02'],
  },
  // AUTH-02: other_app's /auth wants a token (§4 rule 3), and other_app's token no header can carry.
  {
    name: 'other-app-auth-demands-open-token',
    description:
      "/auth refuses the second merchant's application's valid key pair (401) unless the request carries an open-token header, whatever its value",
    kills: ['AUTH-02'],
    handle: (req, next, world) =>
      req.path === '/auth' &&
      world.fixtures.apps.find((a) => a.secret === req.query.get('secret'))?.merchant === OTHER_MERCHANT &&
      tokenOfRequest(req.headers) === undefined
        ? world.render.error(401, 'Application not authenticated: open-token required')
        : next(),
  },
  {
    ...onPath(
      'other-app-token-control-char',
      "/auth issues the second merchant's application a token ending in BEL, which no header value may carry",
      ['/auth'],
      (r, req, world) =>
        world.fixtures.apps.find((a) => a.secret === req.query.get('secret'))?.merchant === OTHER_MERCHANT
          ? withData(r, (d) => {
              d.app_token = `${String(d.app_token)}\u0007`;
            })
          : r,
    ),
    kills: ['AUTH-02'],
  },
  // RO-02: a GET of the second merchant's orders writes.
  {
    name: 'other-merchant-orders-marked-seen',
    description:
      'every GET /orders of the second merchant marks its orders as seen: the next one answers them with a later updated_at',
    kills: ['RO-02'],
    handle: (req, next, world) => {
      const r = next();
      if (req.method !== 'GET' || req.path !== '/orders' || req.merchant?.id !== OTHER_MERCHANT || !isSuccess(r))
        return r;
      let seen = otherReads.get(world);
      if (!seen) otherReads.set(world, (seen = { n: 0 }));
      const n = seen.n++;
      return n === 0
        ? r
        : withData(r, (d: Array<{ updated_at: string }>) =>
            d.forEach((o) => void (o.updated_at = `2031-01-01 00:${String(n % 60).padStart(2, '0')}`)),
          );
    },
  },
  // ERR-06: the second merchant's lists given query parameters.
  otherMerchantListQuery(
    'other-merchant-list-query-applied',
    "the second merchant's lists apply limit: with ?limit=1 they answer its first record only",
    ['/dishes', '/seats', '/orders'],
    (r, req) => (req.query.has('limit') ? withData(r, (d) => d.slice(0, 1)) : r),
  ),
  otherMerchantListQuery(
    'other-merchant-list-query-500',
    "the second merchant's lists answer code 500 to query parameters",
    ['/dishes', '/seats', '/orders'],
    (_r, _req, world) => world.render.error(500, 'System exception: unexpected parameter'),
  ),
  otherMerchantListQuery(
    'other-merchant-list-query-status-filter',
    'GET /seats of the second merchant applies ?status=: only its seats of that status are listed',
    ['/seats'],
    (r, req) =>
      req.query.has('status')
        ? withData(r, (d: Array<{ status: unknown }>) => d.filter((x) => String(x.status) === req.query.get('status')))
        : r,
  ),
  // AUTH-09: the disabled application's key pair opens a data endpoint.
  {
    name: 'disabled-keys-open-orders',
    description:
      "GET /orders takes an application's key pair from its query string as a credential, without reading the disabled flag",
    kills: ['AUTH-09'],
    handle: (req, next, world) => {
      const app = world.fixtures.apps.find(
        (a) => a.secret === req.query.get('secret') && a.key === req.query.get('key'),
      );
      if (req.path !== '/orders' || req.app || !app) return next();
      return route({ ...req, query: new URLSearchParams(), app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
  // AUTH-10: the disabled application's token at /auth, and named in its refusal.
  {
    name: 'auth-renews-disabled-token',
    description:
      "/auth without a key pair renews the token its open-token carries, for any application's token (disabled or not)",
    kills: ['AUTH-10'],
    handle: (req, next, world) => {
      const app = req.path === '/auth' && !req.query.get('secret') ? tokenApp(req, world) : undefined;
      return app ? issuedTo(app, world) : next();
    },
  },
  {
    name: 'disabled-token-refusal-names-merchant',
    description:
      'GET /dishes refuses a disabled application\'s token with a msg naming its merchant\'s e-mail ("disabled by <e-mail>")',
    kills: ['AUTH-10'],
    handle: (req, next, world) => {
      const r = next();
      const app = pathIs(req, '/dishes') ? tokenApp(req, world) : undefined;
      return app?.disabled
        ? withBody(r, (b) => {
            b.msg = `The application was disabled by ${world.merchants.get(app.merchant)!.email}`;
          })
        : r;
    },
  },
  // UNAUTH-SEATS: a refusal naming the second merchant.
  {
    ...onPath(
      'unauth-msg-leaks-other-merchant',
      "The 401 answer of GET /seats names the second merchant's e-mail",
      ['/seats'],
      (r, req, world) =>
        req.app || tokenApp(req, world)?.disabled
          ? r
          : withBody(r, (b) => {
              b.msg = `Not authenticated; contact ${world.merchants.get(OTHER_MERCHANT)!.email}`;
            }),
    ),
    kills: ['UNAUTH-SEATS'],
  },
];
