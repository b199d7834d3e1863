import type { Variant } from './server.js';
import { eachRecord, withData } from './kit.js';

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
      return req.path === '/orders' ? withData(r, (d) => eachRecord(d, (o) => { for (const x of o.dishes) { x.pivot.price = String(x.pivot.price); x.pivot.count = String(x.pivot.count); } })) : r;
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
      return /^\/(dishes|seats)\/[^/]+$/.test(req.path) && (r.body as { code?: number }).code === 404 ? world.render.error(400, 'Parameter error') : r;
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
    name: 'extra-fields-and-nulls',
    description: 'extra fields on every object, nulls where allowed, phone and email_verified_at omitted',
    render: {
      merchant: (m) => { const { phone: _p, email_verified_at: _e, ...rest } = m; return { ...rest, logo_url: null, tier: 'gold' }; },
      dish: (d) => ({ ...d, unit: null, image: 'https://cdn.example/d.png', tags: ['spicy'] }),
      seat: (s) => ({ ...s, remark: null, capacity: 4 }),
    },
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders' ? withData(r, (d) => eachRecord(d, (o) => { o.remark = null; o.waiter_id = null; o.device.version_name = null; o.channel = 'kiosk'; })) : r;
    },
  },
  {
    name: 'list-query-400',
    description: 'list endpoints answer 400 to query parameters',
    handle: (req, next, world) => ([...req.query.keys()].length && ['/dishes', '/seats', '/orders'].includes(req.path) ? world.render.error(400, 'Parameter error: no query parameters accepted') : next()),
  },
];

