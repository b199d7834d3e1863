import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { isSuccess, nearPublicKey, onPath, pathIs, withData, withBody } from '../kit.js';
import { route, type ApiReply, type ApiRequest, type World } from '../server.js';

const unauthorizedAnswer = (
  req: Parameters<NonNullable<Mutant['handle']>>[0],
  world: Parameters<NonNullable<Mutant['handle']>>[2],
): ApiReply => {
  // Answer as if the first application's merchant had sent a valid token.
  const app = world.fixtures.apps[0]!;
  return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
};

/** A data endpoint that skips the token check: any request gets merchant 1's data. */
function skipsTokenCheck(endpoint: string, path: string, kills: string[]): Mutant {
  return {
    name: `no-token-check-${endpoint}`,
    description: `GET ${path} answers without a valid token`,
    kills,
    handle: (req, next, world) => {
      return pathIs(req, path) && !req.app ? unauthorizedAnswer(req, world) : next();
    },
  };
}

/**
 * A data endpoint whose refusal (§5.4: code 401, no data) names one of the merchant's values in msg: only the
 * endpoint's UNAUTH check reads refusal bodies for merchant data (AUTH-10 judges code and data of the disabled
 * application's refusals).
 */
function refusalNames(
  endpoint: string,
  path: string,
  what: string,
  msg: (world: World, req: ApiRequest) => string,
  kill: string,
): Mutant {
  return {
    ...onPath(
      `unauth-msg-leaks-${endpoint}`,
      `The 401 answer of GET ${path} names ${what} in msg`,
      [path],
      // A disabled application's token gets its own refusal ("disabled"), as a token middleware that knows it would.
      (r, req, world) =>
        req.app || world.tokens.get(tokenOfRequest(req.headers) ?? '')?.disabled
          ? r
          : withBody(r, (b) => {
              b.msg = msg(world, req);
            }),
    ),
    kills: [kill],
  };
}

/** /auth's answer to the second merchant's application with its data changed: the check judging other_app owns it. */
function otherAppAuth(name: string, description: string, change: (data: any) => void, kill: string): Mutant {
  return {
    ...onPath(name, description, ['/auth'], (r, req, world) =>
      req.query.get('secret') === world.fixtures.apps[1]!.secret ? withData(r, change) : r,
    ),
    kills: [kill],
  };
}

/** /auth's answer to a valid key pair with its envelope changed (the token still in data): AUTH-01 owns it. */
function authEnvelope(name: string, description: string, change: (body: any) => void): Mutant {
  return {
    ...onPath(name, description, ['/auth'], (r) => (isSuccess(r) ? withBody(r, change) : r)),
    kills: ['AUTH-01'],
  };
}

/** Per server: the public keys /auth has issued a token for (auth-token-issued-once). */
const tokensIssued = new WeakMap<World, Set<string>>();
/** Per server: the second merchant's public keys /auth has issued a token for (other-app-token-issued-once). */
const otherTokensIssued = new WeakMap<World, Set<string>>();

/** The secret key of the merchant's own application, as a careless merchant model would carry it. */
const keyOf = (world: Parameters<NonNullable<Mutant['handle']>>[2], merchant: number): string =>
  world.fixtures.apps.find((a) => a.merchant === merchant && !a.disabled)!.key;

/** Broken /auth and token handling; each mutant is caught by exactly the checks its `kills` names. */
export const authMutants: Mutant[] = [
  {
    name: 'merchant-carries-secret-key',
    description:
      "the merchant record (/merchant and /auth's merchant) carries its application's secret key in a field named integration",
    kills: ['SEC-01'],
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/merchant' && req.path !== '/auth') return r;
      return withData(r, (d) => {
        const m = req.path === '/auth' ? d.merchant : d;
        m.integration = `POS link ${keyOf(world, m.id)}`;
      });
    },
  },
  {
    name: 'merchant-password-hash',
    description:
      'the merchant record carries the console password hash and a remember_token (a Laravel user model published whole)',
    kills: ['SEC-02'],
    render: {
      merchant: (m) => ({
        ...m,
        password: `$2y$10$${'N9qo8uLOickgx2ZMRZoMye'}${'IjZAgcfl7p92ldGxad68LJZdL17lhWy'}`,
        remember_token: `rt${m.id}Xk29fQ0aZ`,
      }),
    },
  },
  // AUTH-09 too: the disabled application's key pair, sent there with no token (#35), gets the data as anything does.
  skipsTokenCheck('merchant', '/merchant', ['UNAUTH-MERCHANT', 'AUTH-09', 'AUTH-10']),
  skipsTokenCheck('dishes', '/dishes', ['UNAUTH-DISHES', 'AUTH-09', 'AUTH-10']),
  skipsTokenCheck('dish', '/dishes/:id', ['UNAUTH-DISH', 'AUTH-09', 'AUTH-10']),
  skipsTokenCheck('seats', '/seats', ['UNAUTH-SEATS', 'AUTH-09', 'AUTH-10']),
  skipsTokenCheck('seat', '/seats/:id', ['UNAUTH-SEAT', 'AUTH-09', 'AUTH-10']),
  skipsTokenCheck('orders', '/orders', ['UNAUTH-ORDERS', 'AUTH-09', 'AUTH-10']),
  {
    // No request can carry it back (RFC 9110 §5.5): the suite sends none, and AUTH-01 alone fails.
    ...onPath(
      'auth-token-control-char',
      "/auth issues the first merchant's application a token ending in BEL, which no header value may carry",
      ['/auth'],
      (r, req, world) =>
        req.query.get('secret') !== world.fixtures.apps[0]!.secret
          ? r
          : withData(r, (d) => {
              d.app_token = `${String(d.app_token)}\u0007`;
            }),
    ),
    kills: ['AUTH-01'],
  },
  {
    ...onPath('auth-no-token', '/auth answers SUCCESS without app_token', ['/auth'], (r) =>
      withData(r, (d) => {
        delete d.app_token;
      }),
    ),
    kills: ['AUTH-01', 'AUTH-02'],
  },
  {
    ...onPath(
      'auth-swapped-keys',
      '/auth echoes the secret key as app_secret and the public key as app_key',
      ['/auth'],
      (r) =>
        withData(r, (d) => {
          [d.app_secret, d.app_key] = [d.app_key, d.app_secret];
        }),
    ),
    kills: ['AUTH-03'],
  },
  {
    ...onPath('auth-merchant-differs', "/auth carries a merchant whose name differs from /merchant's", ['/auth'], (r) =>
      withData(r, (d) => {
        d.merchant.name = `${d.merchant.name} (old)`;
      }),
    ),
    kills: ['AUTH-04'],
  },
  {
    name: 'auth-other-app-merchant-differs',
    description:
      "/auth answers merchant 2's application with the record of a merchant 3 that no endpoint knows; its /merchant is right",
    kills: ['AUTH-04'],
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/auth' || req.query.get('secret') !== world.fixtures.apps[1]!.secret) return r;
      return withData(r, (d) => ({
        ...d,
        merchant: { ...d.merchant, id: 3, merchant_id: 'MCH20240003', name: 'Jade Garden' },
      }));
    },
  },
  // #27, proof per way: each of AUTH-03's two findings on its own, and AUTH-02/03 judging other_app's /auth too.
  {
    ...onPath('auth-app-secret-echo-wrong', '/auth echoes app_secret in upper case (app_key as sent)', ['/auth'], (r) =>
      withData(r, (d) => {
        d.app_secret = String(d.app_secret).toUpperCase();
      }),
    ),
    kills: ['AUTH-03'],
  },
  {
    ...onPath('auth-app-key-echo-wrong', '/auth echoes app_key in upper case (app_secret as sent)', ['/auth'], (r) =>
      withData(r, (d) => {
        d.app_key = String(d.app_key).toUpperCase();
      }),
    ),
    kills: ['AUTH-03'],
  },
  otherAppAuth(
    'auth-other-app-swapped-keys',
    "/auth echoes the second merchant's application's secret key as app_secret and its public key as app_key",
    (d) => {
      [d.app_secret, d.app_key] = [d.app_key, d.app_secret];
    },
    'AUTH-03',
  ),
  otherAppAuth(
    'auth-other-app-name-number',
    "/auth answers the second merchant's application's app_name as a number",
    (d) => {
      d.app_name = 8;
    },
    'AUTH-02',
  ),
  {
    name: 'auth-missing-key-succeeds',
    description: '/auth without key still issues a token',
    kills: ['AUTH-06'],
    handle: (req, next, world) => {
      if (req.path === '/auth' && req.query.get('secret') && !req.query.get('key')) {
        const app = world.fixtures.apps.find((a) => a.secret === req.query.get('secret'));
        if (app) {
          const q = new URLSearchParams(req.query);
          q.set('key', app.key);
          return route({ ...req, query: q }, world);
        }
      }
      return next();
    },
  },
  {
    name: 'auth-wrong-key-400',
    description: '/auth with a wrong secret key answers 400 instead of 401',
    kills: ['AUTH-07'],
    handle: (req, next, world) => {
      const reply = next();
      const app = world.fixtures.apps.find((a) => a.secret === req.query.get('secret'));
      if (req.path === '/auth' && app && req.query.get('key') && app.key !== req.query.get('key'))
        return world.render.error(400, 'Parameter error');
      return reply;
    },
  },
  {
    ...onPath(
      'auth-unknown-public-key-500',
      '/auth with an unknown public key and a known secret key answers 500 (it looks the application up by its secret key)',
      ['/auth'],
      (r, req, world) =>
        !req.query.get('secret') ||
        nearPublicKey(world.fixtures.apps, req.query.get('secret')!) ||
        !world.fixtures.apps.some((a) => a.key === req.query.get('key'))
          ? r
          : world.render.error(500, 'System exception'),
    ),
    kills: ['AUTH-08'],
  },
  {
    // The UNAUTH-* checks' "the refusal carries data" branch, proven on its own (#27): data that names nothing of the
    // merchant, so no leak check sees it.
    name: 'unauth-refusal-carries-hint',
    description: 'every 401 of a data endpoint carries data {"hint": "send the open-token header"}',
    kills: [
      'UNAUTH-MERCHANT',
      'UNAUTH-DISHES',
      'UNAUTH-DISH',
      'UNAUTH-SEATS',
      'UNAUTH-SEAT',
      'UNAUTH-ORDERS',
      'AUTH-10',
      // other_app's requests without a token at its ids, whose data ERR-04 judges (#35).
      'ERR-04',
    ],
    handle: (req, next) => {
      const r = next();
      return req.path === '/auth' || req.app || r.http !== 401
        ? r
        : withBody(r, (b) => {
            b.data = { hint: 'send the open-token header' };
          });
    },
  },
  {
    name: 'disabled-app-still-authenticates',
    description: '/auth ignores that the merchant disabled the application',
    kills: ['AUTH-09'],
    handle: (req, next, world) => {
      const app = world.fixtures.apps.find(
        (a) => a.secret === req.query.get('secret') && a.key === req.query.get('key'),
      );
      if (req.path === '/auth' && app?.disabled) {
        return {
          http: 200,
          body: {
            status: 'SUCCESS',
            code: 200,
            data: {
              app_name: app.name,
              app_secret: app.secret,
              app_key: app.key,
              app_token: 'tok_new_for_disabled_app',
              merchant: world.render.merchant(world.merchants.get(app.merchant)!),
            },
          },
        };
      }
      return next();
    },
  },
  {
    name: 'disabled-token-accepted',
    description: "A disabled application's earlier token still opens /seats",
    kills: ['AUTH-10'],
    handle: (req, next, world) => {
      const token = tokenOfRequest(req.headers);
      const app = typeof token === 'string' ? world.tokens.get(token) : undefined;
      if (app?.disabled && req.path === '/seats')
        return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
      return next();
    },
  },
  {
    ...onPath('seats-rejects-token', 'GET /seats refuses the valid token with 401', ['/seats'], (r, _req, world) =>
      r.http === 200 ? world.render.error(401, 'Application not authenticated') : r,
    ),
    kills: ['AUTH-05'],
  },
  {
    ...onPath(
      'unauth-leaks-merchant',
      'The 401 answer of /merchant carries the merchant record',
      ['/merchant'],
      (r, req, world) =>
        req.app
          ? r
          : withBody(r, (b) => {
              b.data = world.render.merchant(world.merchants.get(1)!);
            }),
    ),
    kills: ['UNAUTH-MERCHANT', 'AUTH-10'],
  },
  refusalNames(
    'merchant',
    '/merchant',
    "the merchant's e-mail",
    (world) => `Application not authenticated; the owner ${world.merchants.get(1)!.email} can issue a token`,
    'UNAUTH-MERCHANT',
  ),
  refusalNames(
    'dishes',
    '/dishes',
    "the merchant's name",
    (world) => `Application not authenticated for ${world.merchants.get(1)!.name}`,
    'UNAUTH-DISHES',
  ),
  refusalNames(
    'dish',
    '/dishes/:id',
    "the dish's name",
    (world, req) =>
      `Application not authenticated to read ${world.dishes.get(Number(req.path.split('/')[2]))?.name ?? 'this dish'}`,
    'UNAUTH-DISH',
  ),
  refusalNames(
    'seats',
    '/seats',
    'the merchant_id',
    (world) => `Application not authenticated (merchant ${world.merchants.get(1)!.merchant_id})`,
    'UNAUTH-SEATS',
  ),
  refusalNames(
    'seat',
    '/seats/:id',
    'an order number of the seat',
    (world, req) => {
      const order = world.fixtures.orders.find((o) => String(o.seat_id) === req.path.split('/')[2]);
      return `Application not authenticated${order ? `; seat busy with order ${order.order_number}` : ''}`;
    },
    'UNAUTH-SEAT',
  ),
  {
    // #35: the other_app refusal was reported as a setup gap pointing at AUTH-01, which had passed.
    name: 'other-app-token-issued-once',
    description:
      "/auth issues the second merchant's application its token once: asked again for the same key pair (the run's own /auth after the preflight's), it refuses with 401",
    kills: ['AUTH-02'],
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/auth' || !isSuccess(r)) return r;
      const secret = req.query.get('secret') ?? '';
      if (world.fixtures.apps.find((a) => a.secret === secret)?.merchant !== 2) return r;
      const issued = otherTokensIssued.get(world) ?? new Set<string>();
      otherTokensIssued.set(world, issued);
      if (!issued.has(secret)) {
        issued.add(secret);
        return r;
      }
      return world.render.error(401, 'Application authentication error: a token was already issued');
    },
  },
  {
    name: 'auth-token-issued-once',
    description:
      "/auth issues the first merchant's application its token once: asked again for the same key pair, it refuses with 401 (token already issued)",
    // The preflight's /auth gets the token; the run's own /auth is refused. Only AUTH-01 judges that answer: the
    // checks that need a token are blocked, and AUTH-02/03 judge a success only.
    kills: ['AUTH-01'],
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/auth' || !isSuccess(r)) return r;
      const issued = tokensIssued.get(world) ?? new Set<string>();
      tokensIssued.set(world, issued);
      const secret = req.query.get('secret') ?? '';
      // app's only (merchant 1): other_app's is other-app-token-issued-once, AUTH-02's.
      if (world.fixtures.apps.find((a) => a.secret === secret)?.merchant !== 1) return r;
      if (!issued.has(secret)) {
        issued.add(secret);
        return r;
      }
      return world.render.error(401, 'Application authentication error: a token was already issued');
    },
  },
  {
    ...onPath('auth-app-name-number', '/auth answers app_name as a number (the application id)', ['/auth'], (r) =>
      withData(r, (d) => {
        d.app_name = 7;
      }),
    ),
    kills: ['AUTH-02'],
  },
  // The broken /auth servers of issue 23 that the preflight once blamed on the setup: each accepts the key pair (a
  // token in data, or one behind a needless open-token header), so the run goes on and AUTH-01 alone judges the
  // answer; every check that needs the run's token is blocked, which leaves it incomplete, not failed.
  authEnvelope('auth-status-lowercase', '/auth answers a valid key pair with status "success" (token in data)', (b) => {
    b.status = 'success';
  }),
  authEnvelope('auth-code-string', '/auth answers a valid key pair with code "200", a string (token in data)', (b) => {
    b.code = '200';
  }),
  authEnvelope('auth-code-zero', '/auth answers a valid key pair with code 0 (token in data)', (b) => {
    b.code = 0;
  }),
  {
    name: 'auth-demands-open-token',
    description: '/auth refuses every key pair with 401 unless the request carries an open-token header (any value)',
    // app's refusal is AUTH-01's, other_app's AUTH-02's (#35).
    kills: ['AUTH-01', 'AUTH-02'],
    handle: (req, next, world) =>
      req.path === '/auth' && tokenOfRequest(req.headers) === undefined
        ? world.render.error(401, 'Application not authenticated')
        : next(),
  },
  {
    ...onPath(
      'unauth-msg-leaks-order-number',
      'The 401 answer of /orders names an order number in msg',
      ['/orders'],
      (r, req, world) =>
        req.app || world.tokens.get(tokenOfRequest(req.headers) ?? '')?.disabled
          ? r
          : withBody(r, (b) => {
              b.msg = `token invalid for order ${world.fixtures.orders[0]!.order_number}`;
            }),
    ),
    kills: ['UNAUTH-ORDERS'],
  },
];
