import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { stringify as losslessStringify } from 'lossless-json';
import { ok, route, type ApiReply, type Variant } from './server.js';
import type { Dish, Seat } from './fixtures.js';
import { eachRecord, isSuccess, withData } from './kit.js';
import { codedBodies } from './wire-variants.js';

/** Per server: the token that expires, and how often it was used. */
const expiring = new WeakMap<object, { token: string; uses: number }>();

/** Snowflake-style 64-bit ids: every dish, seat and order id is this plus its fixture id (far past 2^53). */
const SNOWFLAKE_BASE = 1_300_000_000_000_000_000n;
const snow = (n: number): number | bigint => (n > 0 ? SNOWFLAKE_BASE + BigInt(n) : n);
type R = Record<string, any>;
const snowDish = (d: R): R => ({
  ...d,
  id: snow(d.id),
  ...(d.pivot ? { pivot: { ...d.pivot, order_id: snow(d.pivot.order_id), dish_id: snow(d.pivot.dish_id) } } : {}),
});
const snowSeat = (s: R): R => ({ ...s, id: snow(s.id) });
const snowOrder = (o: R): R => ({
  ...o,
  id: snow(o.id),
  seat_id: snow(o.seat_id),
  seat: o.seat ? snowSeat(o.seat) : o.seat,
  device: { ...o.device, seat_id: snow(o.device.seat_id) },
  dishes: o.dishes.map(snowDish),
});

/** The reply with its records' ids made 64-bit, written as exact JSON digits (JSON.stringify cannot print a bigint). */
function snowflaked(reply: ApiReply, path: string): ApiReply {
  if (!isSuccess(reply)) return reply;
  const body = reply.body as R;
  const map =
    path === '/dishes'
      ? (d: R[]) => d.map(snowDish)
      : path === '/seats'
        ? (d: R[]) => d.map(snowSeat)
        : path === '/orders'
          ? (d: R[]) => d.map(snowOrder)
          : path.startsWith('/dishes/')
            ? snowDish
            : path.startsWith('/seats/')
              ? snowSeat
              : undefined;
  return map ? { ...reply, raw: losslessStringify({ ...body, data: map(body.data) })! } : reply;
}

/** Per server: how many answers the reordering variant has shuffled (each answer a new order). */
const shuffles = new WeakMap<object, number>();

/** The items in an order drawn from the seed (a small xorshift generator), never the order they came in when 2+. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  // A shuffle may land on the order it started from: a rotation then makes it another.
  return out.length > 1 && out.every((v, i) => v === items[i]) ? [...out.slice(1), out[0]!] : out;
}

/**
 * Conforming variants: each uses the spec's latitude (issue list "The spec's latitude") and must pass with zero
 * failures and zero SHOULD warnings.
 */
export const LATITUDE_VARIANTS: Variant[] = [
  {
    name: 'numeric-strings',
    description: 'pivot.price, pivot.count, seat.table_number and seat.status as strings ("0", "-1")',
    render: {
      seat: (s) => ({ ...s, table_number: String(s.table_number), status: String(s.status) }),
    },
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders'
        ? withData(r, (d) =>
            eachRecord(d, (o) => {
              for (const x of o.dishes) {
                x.pivot.price = String(x.pivot.price);
                x.pivot.count = String(x.pivot.count);
              }
            }),
          )
        : r;
    },
  },
  {
    name: 'numbers-not-strings',
    description: 'seat.table_number and status as integers, prices as integers where they have no fraction',
    render: { seat: (s) => ({ ...s, table_number: Number(s.table_number), status: s.status }) },
  },
  {
    name: 'errors-http-200',
    description: 'every error answered with HTTP 200, status "FAIL" and no msg',
    render: { error: (code) => ({ http: 200, body: { status: 'FAIL', code } }) },
  },
  {
    name: 'errors-400-unknown-ids',
    description: 'unknown dish and seat ids answer code 400 instead of 404',
    handle: (req, next, world) => {
      const r = next();
      return /^\/(dishes|seats)\/[^/]+$/.test(req.path) && (r.body as { code?: number }).code === 404
        ? world.render.error(400, 'Parameter error')
        : r;
    },
  },
  {
    name: 'same-token-each-call',
    description: '/auth returns the same token on every call',
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/auth') return r;
      return withData(r, (d) => {
        const app = world.fixtures.apps.find((a) => a.secret === d.app_secret)!;
        const fixed = `tok_fixed_${app.secret}`;
        world.tokens.set(fixed, app);
        d.app_token = fixed;
      });
    },
  },
  {
    // §5.6: token lifetime is not shown. A server may keep one live token per application.
    name: 'new-token-revokes-previous',
    description: "issuing a new token to an application ends that application's earlier tokens",
    handle: (req, next, world) => {
      const r = next();
      if (req.path !== '/auth' || !isSuccess(r)) return r;
      const fresh = (r.body as { data: { app_token: string } }).data.app_token;
      const app = world.tokens.get(fresh);
      for (const [t, a] of world.tokens) if (a === app && t !== fresh) world.tokens.delete(t);
      return r;
    },
  },
  {
    // §5.6: token lifetime is not shown. A token may expire during a run; the suite renews it once.
    name: 'first-token-expires',
    description:
      'the first token of the application under test used for data stops working after 40 data requests (an expiry)',
    handle: (req, next, world) => {
      const token = tokenOfRequest(req.headers);
      if (req.path !== '/auth' && typeof token === 'string' && req.app === world.fixtures.apps[0]) {
        const t = expiring.get(world) ?? { token, uses: 0 };
        expiring.set(world, t);
        if (token === t.token && ++t.uses > 40)
          return world.render.error(401, 'Application not authenticated: token expired');
      }
      return next();
    },
  },
  {
    name: 'extra-fields-and-nulls',
    description: 'extra fields on every object, nulls where allowed, phone and email_verified_at omitted',
    render: {
      merchant: (m) => {
        const { phone: _p, email_verified_at: _e, ...rest } = m;
        return { ...rest, logo_url: null, tier: 'gold' };
      },
      dish: (d) => ({ ...d, unit: null, image: 'https://cdn.example/d.png', tags: ['spicy'] }),
      seat: (s) => ({ ...s, remark: null, capacity: 4 }),
    },
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders'
        ? withData(r, (d) =>
            eachRecord(d, (o) => {
              o.remark = null;
              o.waiter_id = null;
              o.device.version_name = null;
              o.channel = 'kiosk';
            }),
          )
        : r;
    },
  },
  {
    // §7 defines an error by its envelope code; the spec says nothing of HTTP statuses (ERR-05 only observes).
    name: 'errors-any-http-status',
    description: 'every error goes out with HTTP 400, whatever its envelope code (401, 404 …)',
    handle: (_req, next) => {
      const r = next();
      return r.http !== 200 ? { ...r, http: 400 } : r;
    },
  },
  {
    // §2.4 names order_table_number and the seat, never says they agree (judgement: a table renumbered since).
    name: 'order-table-number-not-seat',
    description: 'order 5001 has order_table_number 7 while its seat 11 is table 1 (renumbered after the order)',
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders'
        ? withData(r, (d) =>
            eachRecord(d, (o) => {
              if (o.id === 5001) o.order_table_number = 7;
            }),
          )
        : r;
    },
  },
  {
    // SEC-02 names credential material by field name: names that merely contain such a word are not it.
    name: 'credential-lookalike-fields',
    description: 'dishes carry token_count, secretary, keywords and is_secret_menu; the merchant a passport_country',
    render: {
      dish: (d) => ({ ...d, token_count: 2, secretary: null, keywords: ['spicy'], is_secret_menu: false }),
      merchant: (m) => ({ ...m, passport_country: 'CN' }),
    },
  },
  {
    // §2.5 gives the e-mail no syntax; §2.4–2.5 "ISO 8601 UTC with fractional seconds" has more than one spelling.
    name: 'idn-email-and-utc-spellings',
    description:
      "merchant 1's e-mail is internationalized (店主@金龙酒家.example, RFC 6531); merchant times carry one fraction digit and the +00:00 offset; device times a comma fraction",
    render: {
      merchant: (m) => ({
        ...m,
        ...(m.id === 1 ? { email: '店主@金龙酒家.example' } : {}),
        created_at: m.created_at.replace(/\.\d+Z$/, '.5+00:00'),
        updated_at: m.updated_at.replace(/\.\d+Z$/, '.25Z'),
      }),
    },
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders'
        ? withData(r, (d) =>
            eachRecord(d, (o) => {
              o.device.created_at = o.device.created_at.replace('.', ',');
            }),
          )
        : r;
    },
  },
  {
    // §2.4 "Device IP" is an IP address of either version, in any of its text forms.
    name: 'device-ipv6',
    description: 'order devices carry IPv6 addresses (2001:db8::n, and an IPv4-mapped ::ffff:10.0.0.n)',
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders'
        ? withData(r, (d) =>
            eachRecord(d, (o, i) => {
              o.device.ip = i % 2 ? `::ffff:10.0.0.${o.device.id}` : `2001:db8::${o.device.id}`;
            }),
          )
        : r;
    },
  },
  {
    name: 'list-query-400',
    description: 'list endpoints answer 400 to query parameters',
    handle: (req, next, world) =>
      [...req.query.keys()].length && ['/dishes', '/seats', '/orders'].includes(req.path)
        ? world.render.error(400, 'Parameter error: no query parameters accepted')
        : next(),
  },
  {
    name: 'content-type-no-charset',
    description: 'every answer has Content-Type application/json without a charset (JSON is UTF-8 by RFC 8259)',
    handle: (_req, next) => {
      const r = next();
      return { ...r, headers: { ...r.headers, 'content-type': 'application/json' } };
    },
  },
  {
    // #35: the aliases the token rule's probes send (support/token-probes.ts PATH_WAYS), all served, all with the check.
    name: 'router-serves-aliases',
    description:
      'the router serves every spelling of a data endpoint as the endpoint, with the token check: a trailing or doubled slash, the path in any letter case, a percent-encoded letter',
    handle: (req, next, world) => {
      const segs = req.path.split('/').filter(Boolean);
      if (!segs.length) return next();
      let first: string;
      try {
        first = decodeURIComponent(segs[0]!).toLowerCase();
      } catch {
        return next();
      }
      if (!['merchant', 'dishes', 'seats', 'orders'].includes(first)) return next();
      const path = `/${[first, ...segs.slice(1)].join('/')}`;
      return path === req.path ? next() : route({ ...req, path }, world);
    },
  },
  {
    name: 'auth-before-routing',
    description:
      'a request without a valid token gets 401 before routing, so an unknown interface without a token answers 401',
    handle: (req, next, world) =>
      req.path !== '/auth' && !req.app ? world.render.error(401, 'Application not authenticated') : next(),
  },
  {
    // Consistency checks compare these renderings of one record: number and numeric string are the same value.
    name: 'mixed-number-renderings',
    description:
      'seat table_number and status are strings in /seats but numbers in /seats/:id and in orders; pivot.price and pivot.count strings in one order only; /dishes/:id carries a field the list lacks',
    handle: (req, next) => {
      const r = next();
      if (req.path === '/seats')
        return withData(r, (d) =>
          eachRecord(d, (s) => {
            s.table_number = String(s.table_number);
            s.status = String(s.status);
          }),
        );
      const detail = /^\/(seats|dishes)\/[^/]+$/.exec(req.path)?.[1];
      if (detail === 'seats')
        return withData(r, (s) => {
          s.table_number = Number(s.table_number);
          s.status = Number(s.status);
        });
      if (detail === 'dishes')
        return withData(r, (d) => {
          d.description = 'Only the detail says this';
        });
      if (req.path !== '/orders') return r;
      return withData(r, (d) =>
        eachRecord(d, (o) => {
          if (o.seat) {
            o.seat.table_number = Number(o.seat.table_number);
            o.seat.status = Number(o.seat.status);
          }
          if (o.id === 5001)
            for (const x of o.dishes) {
              x.pivot.price = x.pivot.price.toFixed(2);
              x.pivot.count = String(x.pivot.count);
            }
        }),
      );
    },
  },
  {
    // The spec does not say ids are global: merchant 2 numbering its records in its own space is conforming, and
    // the isolation checks must not mistake its dish 101 for merchant 1's.
    name: 'per-merchant-ids',
    description:
      "merchant 2's dishes and seats are numbered in its own id space (its dish 201 is its dish 101, seat 21 its seat 11), overlapping merchant 1's ids",
    handle: (req, next, world) => {
      if (req.merchant?.id !== 2) return next();
      const shift = { dishes: 100, seats: 10 } as const;
      const detail = /^\/(dishes|seats)\/([0-9]{1,9})$/.exec(req.path);
      if (detail) {
        const resource = detail[1] as 'dishes' | 'seats';
        const id = Number(detail[2]) + shift[resource];
        const rec = resource === 'dishes' ? world.dishes.get(id) : world.seats.get(id);
        if (!rec || rec.user_id !== 2) return world.render.error(404, 'Record not found');
        return ok({
          ...(resource === 'dishes' ? world.render.dish(rec as Dish) : world.render.seat(rec as Seat)),
          id: Number(detail[2]),
        });
      }
      const r = next();
      if (req.path === '/dishes')
        return withData(r, (d) =>
          eachRecord(d, (x) => {
            x.id -= shift.dishes;
          }),
        );
      if (req.path === '/seats')
        return withData(r, (d) =>
          eachRecord(d, (x) => {
            x.id -= shift.seats;
          }),
        );
      if (req.path !== '/orders') return r;
      return withData(r, (d) =>
        eachRecord(d, (o) => {
          if (o.seat_id) {
            o.seat_id -= shift.seats;
            o.seat.id -= shift.seats;
            o.device.seat_id = o.seat_id;
          }
          for (const x of o.dishes) {
            x.id -= shift.dishes;
            x.pivot.dish_id -= shift.dishes;
          }
        }),
      );
    },
  },
  {
    // §2 types ids as int with no range: POS systems use 64-bit snowflake ids, which JSON.parse would round.
    name: 'snowflake-ids',
    description:
      'dish, seat and order ids (and every reference to them: pivot, seat_id, seat.id, device.seat_id) are 64-bit snowflake ids above 2^53, e.g. 1300000000000000101',
    handle: (req, next, world) => {
      const detail = /^\/(dishes|seats)\/([0-9]+)$/.exec(req.path);
      if (detail) {
        // Only the 64-bit ids name records; the small fixture ids behind them do not.
        const small = BigInt(detail[2]!) - SNOWFLAKE_BASE;
        if (small <= 0n || small >= 2n ** 31n) return world.render.error(404, 'Record not found');
        req.path = `/${detail[1]}/${small}`;
      }
      return snowflaked(next(), detail ? `/${detail[1]}/` : req.path);
    },
  },
  {
    name: 'strict-id-parsing',
    description: 'dish and seat ids with leading zeros ("0101") answer 400 instead of the record',
    handle: (req, next, world) =>
      /^\/(dishes|seats)\/0[0-9]+$/.test(req.path) ? world.render.error(400, 'Parameter error: malformed id') : next(),
  },
  {
    // §4 defines which records a list holds ("all dishes of the current merchant"), not their order: a SELECT without
    // ORDER BY read by parallel workers answers them in a new order on every request.
    name: 'lists-in-any-order',
    description: "every list (/dishes, /seats, /orders) and every order's dishes come in a new order on every request",
    handle: (req, next, world) => {
      const r = next();
      if (!['/dishes', '/seats', '/orders'].includes(req.path)) return r;
      const n = (shuffles.get(world) ?? 0) + 1;
      shuffles.set(world, n);
      return withData(r, (d: R[]) =>
        shuffled(d, n).map((x, i) =>
          Array.isArray(x.dishes) ? { ...x, dishes: shuffled(x.dishes, n * 7919 + i) } : x,
        ),
      );
    },
  },
  {
    // §4: "The request has no body." A front end (a cloud load balancer, a WAF) may refuse a GET that has one before
    // the API sees it, with a page of its own: no token is issued, which is all §5.2 asks of it (AUTH-06).
    name: 'get-body-refused-by-front-end',
    description: 'a front end answers any request with a body HTTP 400 with an HTML page of its own, not an envelope',
    handle: (req, next) =>
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
        ? {
            http: 400,
            body: null,
            raw: '<!DOCTYPE html><html><title>400 Bad Request</title><h1>Bad Request</h1><p>Your client has issued a malformed or illegal request.</p></html>',
            headers: { 'content-type': 'text/html; charset=UTF-8' },
          }
        : next(),
  },
  // RFC 9110 §12.5.3: bodies coded gzip, br and deflate whatever the request's Accept-Encoding (the client decodes).
  codedBodies,
];

/**
 * A broken /auth (issue 23): it answers merchant 2's application with merchant 1's record, while /merchant with that
 * application's token answers merchant 2. The server contradicts itself, so the two applications are not one
 * merchant of the setup: AUTH-04 fails the run, and ISO-01 to ISO-04 too (/auth hands merchant 2's application
 * merchant 1's record, and the isolation checks trust /auth). Not a mutant, since more than one check catches it.
 */
export const AUTH_NAMES_MERCHANT_1_FOR_OTHER_APP: Variant = {
  name: 'auth-other-app-names-merchant-1',
  description:
    "/auth answers merchant 2's application with merchant 1's record, while /merchant with that application's token answers merchant 2",
  handle: (req, next, world) => {
    const r = next();
    if (req.path !== '/auth' || req.query.get('secret') !== world.fixtures.apps[1]!.secret) return r;
    return withData(r, (d) => ({ ...d, merchant: world.render.merchant(world.merchants.get(1)!) }));
  },
};
